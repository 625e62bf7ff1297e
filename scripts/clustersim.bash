# Bash completion of clustersim's commands, options and operands.  The
# lists are those of the option table (sim/cli/cli_table.c);
# tests/test_cli_install.c checks that they match it.  Installed by
# make install as PREFIX/share/bash-completion/completions/clustersim.

_clustersim()
{
	local cur prev cmd opts
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	local cmds="run validate sweep merge plot optimize policies bench-eval parallelism version help"
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$cmds" -- "$cur"))
		return
	fi
	cmd=${COMP_WORDS[1]}
	case $cmd in
	run) opts="-o --policy --plugin -q --quiet --check --lenient --no-plots --allocations --stats -j --jobs -h --help" ;;
	validate) opts="--policy --plugin -q --quiet -h --help" ;;
	sweep) opts="-o --plugin -q --quiet --check --lenient --no-plots --stats -j --jobs --shard --dry-run --slurm --submit --tasks --time --mem --cpus-per-task --partition --account -h --help" ;;
	merge) opts="--no-plots -h --help" ;;
	plot) opts="-h --help" ;;
	optimize) opts="-o -q --quiet --no-plots -h --help" ;;
	policies) opts="--plugin -h --help" ;;
	bench-eval) opts="-h --help" ;;
	parallelism) opts="-h --help" ;;
	version) opts="-h --help" ;;
	help) opts="-h --help" ;;
	*) return ;;
	esac
	case $prev in
	-o) COMPREPLY=($(compgen -d -- "$cur")); return ;;
	--plugin) COMPREPLY=($(compgen -f -X '!*.so' -- "$cur") $(compgen -d -- "$cur")); return ;;
	--policy|-j|--jobs|--shard|--tasks|--time|--mem|--cpus-per-task|--partition|--account) return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	case $cmd in
	run|validate|sweep|optimize)
		COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur")) ;;
	merge|plot) COMPREPLY=($(compgen -d -- "$cur")) ;;
	help) COMPREPLY=($(compgen -W "$cmds" -- "$cur")) ;;
	esac
}
complete -F _clustersim clustersim

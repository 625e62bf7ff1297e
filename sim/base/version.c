/*
 * The source revision clustersim was built from.  build/gen/revision.h is
 * written by scripts/gen-revision.sh from "git describe --always --dirty"
 * (or "unknown" outside git) and rewritten only when it changes, and this is
 * the only file that includes it: a commit recompiles this file and
 * relinks, nothing more.
 */
#include "base/version.h"

#include "revision.h"

const char *version_revision(void)
{
	return CLUSTERSIM_REVISION;
}

/*
 * Results folders (outdir.h): the flock(2) lock that keeps two runs out
 * of one folder, the removal of the temporaries of runs that died, and of
 * the run folders a re-run no longer produces.
 *
 * The lock file stays where it is while it is held and is removed by the
 * last holder.  A process that opened it just before it was removed would
 * lock a file no longer in the folder, so after locking, the open file
 * must still be the one at the path (same device and inode), else the
 * lock is taken again.  Only files clustersim writes are ever removed:
 * "NAME.tmp.DIGITS" temporaries, and in a run folder the result files the
 * caller names.
 */
#include "base/outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"

/* "NAME.tmp.DIGITS": a temporary of afile_open(). */
static bool is_tmp_name(const char *s)
{
	const char *t = strstr(s, ".tmp.");
	if (!t || t == s)
		return false;
	for (;;) {
		const char *p = t + 5;
		if (!*p)
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
		if (!*p)
			return true;
		/* A name may hold ".tmp." before its own suffix. */
		if (!(t = strstr(t + 1, ".tmp.")))
			return false;
	}
}

/* Removes the temporaries in dir; with sub, in its subfolders too. */
static size_t clean_dir(int dfd, bool sub)
{
	size_t n = 0;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return 0;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *s = de->d_name;
		struct stat st;
		if (!strcmp(s, ".") || !strcmp(s, "..") ||
		    fstatat(dirfd(d), s, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (S_ISREG(st.st_mode) && is_tmp_name(s)) {
			n += unlinkat(dirfd(d), s, 0) == 0;
		} else if (S_ISDIR(st.st_mode) && sub) {
			int fd = openat(dirfd(d), s, O_RDONLY | O_DIRECTORY |
					O_NOFOLLOW | O_CLOEXEC);
			if (fd >= 0)
				n += clean_dir(fd, false);
		}
	}
	closedir(d);
	return n;
}

size_t outdir_clean_tmp(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? 0 : clean_dir(fd, true);
}

/* "(held by pid 123 on node7)" from the lock file, or "" when unknown. */
static void holder(int fd, char *buf, size_t n)
{
	char text[300];
	ssize_t k = pread(fd, text, sizeof(text) - 1, 0);
	long pid;
	char host[256];
	buf[0] = '\0';
	if (k <= 0)
		return;
	text[k] = '\0';
	int got = sscanf(text, "%ld %255s", &pid, host);
	if (got >= 1 && pid > 0)
		snprintf(buf, n, " (held by pid %ld%s%s)", pid,
			 got == 2 ? " on " : "", got == 2 ? host : "");
}

/* Records this process as the holder: "PID HOST\n". */
static void write_holder(int fd)
{
	char host[256] = "";
	if (gethostname(host, sizeof(host) - 1) != 0 || str_has_control(host))
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	char *text = xasprintf("%ld %s\n", (long)getpid(), host);
	if (ftruncate(fd, 0) == 0 && pwrite(fd, text, strlen(text), 0) < 0)
		(void)0; /* the holder is only for messages */
	free(text);
}

/* Whether fd is still the file at path. */
static bool same_file(int fd, const char *path)
{
	struct stat a, b;
	return fstat(fd, &a) == 0 && stat(path, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Opens and locks the lock file at path; returns the fd or a negative
 * code. */
static int take(const char *dir, const char *path, bool shared,
		struct sim_error *err)
{
	for (int tries = 0; tries < 100; tries++) {
		int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
			      0644);
		if (fd < 0)
			return err_setc(err, err_io_code(errno), "%s: cannot "
					"write in the output folder: %s", dir,
					strerror(errno));
		if (flock(fd, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
			int en = errno;
			char who[320];
			holder(fd, who, sizeof(who));
			close(fd);
			if (en == EWOULDBLOCK)
				return err_set(err, "%s: the output folder is "
					       "in use by another clustersim "
					       "run%s; wait for it to end or "
					       "write elsewhere (-o DIR)", dir,
					       who);
			return err_setc(err, -SIM_EIO, "%s: cannot lock the "
					"output folder: %s", dir,
					strerror(en));
		}
		if (same_file(fd, path))
			return fd;
		close(fd); /* removed by its last holder meanwhile */
	}
	return err_setc(err, -SIM_EIO, "%s: cannot lock the output folder: "
			"its lock file keeps changing", dir);
}

int outdir_lock(struct outdir *d, const char *dir, bool shared,
		struct sim_error *err)
{
	int rc = mkdir_p(dir, err);
	if (rc)
		return rc;
	char *path = path_join(dir, OUTDIR_LOCK_NAME);
	int fd = take(dir, path, shared, err);
	if (fd < 0) {
		free(path);
		return fd;
	}
	*d = (struct outdir){ .fd = fd, .lock = path, .shared = shared };
	write_holder(fd);
	if (!shared)
		d->stale = outdir_clean_tmp(dir);
	return 0;
}

void outdir_unlock(struct outdir *d)
{
	if (!d->lock)
		return;
	/* The last holder removes the file; shared holders find out by
	 * trying for the exclusive lock. */
	if (!d->shared || flock(d->fd, LOCK_EX | LOCK_NB) == 0)
		unlink(d->lock);
	close(d->fd);
	free(d->lock);
	*d = (struct outdir){ .fd = -1 };
}

/* Whether s is one of the NULL-ended names, or a temporary of one. */
static bool is_result(const char *s, const char *const *files)
{
	for (; *files; files++) {
		size_t n = strlen(*files);
		if (!strncmp(s, *files, n) &&
		    (!s[n] || (is_tmp_name(s) && !strncmp(s + n, ".tmp.", 5))))
			return true;
	}
	return false;
}

/* Removes the result files in the open folder dfd (closes it), unless
 * it holds anything else: then it removes nothing and returns false. */
static bool empty_results(int dfd, const char *const *files)
{
	DIR *d = fdopendir(dfd);
	bool only = true;
	if (!d) {
		close(dfd);
		return false;
	}
	for (int pass = 0; pass < 2 && only; pass++) {
		struct dirent *de;
		rewinddir(d);
		while ((de = readdir(d)) && only) {
			const char *s = de->d_name;
			struct stat st;
			if (!strcmp(s, ".") || !strcmp(s, ".."))
				continue;
			/* Another shard of the sweep may be removing it
			 * too. */
			if (fstatat(dirfd(d), s, &st, AT_SYMLINK_NOFOLLOW)) {
				only = errno == ENOENT;
				continue;
			}
			if (!S_ISREG(st.st_mode) || !is_result(s, files))
				only = false;
			else if (pass == 1 && unlinkat(dirfd(d), s, 0) != 0)
				only = errno == ENOENT;
		}
	}
	closedir(d);
	return only;
}

int outdir_remove_run(const char *dir, const char *name,
		      const char *const *files, struct sim_error *why)
{
	if (!*name || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, "..") || str_has_control(name))
		return err_setc(why, -1, "'%s' is not a run folder's name",
				name);
	char *path = path_join(dir, name);
	struct stat st;
	int rc = 0;
	if (lstat(path, &st) != 0) {
		rc = errno == ENOENT ? 0 : err_setc(why, -1, "%s: %s", path,
						    strerror(errno));
		goto out;
	}
	if (!S_ISDIR(st.st_mode)) {
		rc = err_setc(why, -1, "%s: kept: not a folder", path);
		goto out;
	}
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || !empty_results(fd, files) ||
	    (rmdir(path) != 0 && errno != ENOENT)) {
		rc = err_setc(why, -1, "%s: kept: it holds files that "
			      "clustersim did not write", path);
		goto out;
	}
	rc = 1;
out:
	free(path);
	return rc;
}

int outdir_want(const char *dir, const char *name, bool folder,
		struct sim_error *err)
{
	char *path = path_join(dir, name);
	struct stat st;
	int rc = 0;
	if (stat(path, &st) == 0 && folder != !!S_ISDIR(st.st_mode))
		rc = err_set(err, "%s: %s is in the way of the %s there", path,
			     folder ? "a file" : "a folder",
			     folder ? "run folder" : "result file");
	free(path);
	return rc;
}

/*
 * The tool's version and the source revision it was built from, written
 * into manifest.json and printed by "clustersim --version".
 *
 * Versioning is MAJOR.MINOR.PATCH (docs/versioning.md): MINOR goes up with
 * any change of output columns or files or of experiment keys, MAJOR with
 * a change of what an existing column or key means, PATCH with fixes that
 * change neither.  This is the one place the number is kept.
 */
#ifndef CLUSTERSIM_VERSION_H
#define CLUSTERSIM_VERSION_H

#define CLUSTERSIM_VERSION "0.7.0"

/* The source revision at build time ("git describe --always --dirty"), or
 * "unknown" when the tree was built outside git (a release tarball).  It
 * lives in its own object (sim/base/version.c) so that a new commit
 * recompiles that file alone. */
const char *version_revision(void);

#endif

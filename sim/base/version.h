/*
 * The tool's version, written into manifest.json and printed by
 * "clustersim --version".  Semantic versioning: output formats and metric
 * definitions change only with a new minor (0.x) or major version.
 */
#ifndef CLUSTERSIM_VERSION_H
#define CLUSTERSIM_VERSION_H

#define CLUSTERSIM_VERSION "0.1.0"

#endif

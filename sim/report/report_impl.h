/*
 * What the files of the report wing's results-folder part (folder.c,
 * html.c) share, and no one else uses.
 */
#ifndef CLUSTERSIM_REPORT_IMPL_H
#define CLUSTERSIM_REPORT_IMPL_H

#include <stdbool.h>

struct cJSON;

/* The JSON file at path, parsed (NULL when it is missing, unreadable
 * or not JSON); cJSON_Delete() it. */
struct cJSON *report_read_json(const char *path);
/* Whether dir/name is readable. */
bool report_has(const char *dir, const char *name);
/* The experiment's name from dir/manifest.json: its resolved "name", else
 * its file's name without ".json", else "" (caller frees). */
char *report_experiment_name(const char *dir);

#endif

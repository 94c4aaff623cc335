#define _GNU_SOURCE
#include "cbuildinfo.h"

#include <link.h>
#include <string.h>

// Given by Package.swift when PODIUM_VERSION is set; only this file is built with it, so a new
// version rebuilds this file and relinks, nothing more.
#ifndef PODIUM_BUILD_VERSION
#define PODIUM_BUILD_VERSION ""
#endif

const char *cbuildinfo_version(void) { return PODIUM_BUILD_VERSION; }

struct search { const char *prefix; char *path; size_t size; int found; };

static int visit(struct dl_phdr_info *info, size_t length, void *context) {
    (void)length;
    struct search *search = context;
    const char *slash = strrchr(info->dlpi_name, '/');
    const char *name = slash ? slash + 1 : info->dlpi_name;
    if (strncmp(name, search->prefix, strlen(search->prefix)) != 0) return 0;
    size_t needed = strlen(info->dlpi_name) + 1;
    if (needed > search->size) return 1;
    memcpy(search->path, info->dlpi_name, needed);
    search->found = 1;
    return 1;
}

int cbuildinfo_loaded_library(const char *prefix, char *path, size_t size) {
    struct search search = { prefix, path, size, 0 };
    dl_iterate_phdr(visit, &search);
    return search.found ? 0 : -1;
}

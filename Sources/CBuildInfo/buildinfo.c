#include "cbuildinfo.h"

// Given by Package.swift when PODIUM_VERSION is set; only this file is built with it, so a new
// version rebuilds this file and relinks, nothing more.
#ifndef PODIUM_BUILD_VERSION
#define PODIUM_BUILD_VERSION ""
#endif

const char *cbuildinfo_version(void) { return PODIUM_BUILD_VERSION; }

#ifndef CBUILDINFO_H
#define CBUILDINFO_H

// The version a package build was made as (`git describe`, set by Scripts/package through the
// manifest's PODIUM_VERSION); empty in a build from source.
const char *cbuildinfo_version(void);

#endif

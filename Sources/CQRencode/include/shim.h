#ifndef PODIUM_CQRENCODE_SHIM_H
#define PODIUM_CQRENCODE_SHIM_H

// libqrencode: the QR code of the browser viewer's link.
#include <qrencode.h>

#endif

#ifndef PODIUM_CPULSE_SHIM_H
#define PODIUM_CPULSE_SHIM_H

// libpulse: the PulseAudio client, which PipeWire's PulseAudio interface serves too; the simple
// API reads a recording stream on the caller's thread.
#include <pulse/error.h>
#include <pulse/pulseaudio.h>
#include <pulse/simple.h>

#endif

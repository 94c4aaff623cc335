// A WebRTC peer connection that publishes (WHIP's side of it), made of GStreamer's webrtcbin:
// libnice for ICE, OpenSSL for DTLS, libsrtp2 for SRTP. In C because webrtcbin is driven through
// GObject signals and properties with variadic calls Swift cannot make.
#ifndef PODIUM_CWEBRTC_H
#define PODIUM_CWEBRTC_H

#include <stddef.h>

typedef struct cwebrtc cwebrtc;

// Makes a peer connection with two send-only transceivers, H.264 (constrained baseline,
// packetization mode 1) and Opus, bundled on one transport, with the ICE servers given
// (`stun://host:port`, `turn://user:pass@host:port`); gathers its candidates (at most
// `gather_ms`) and writes the offer, with them in it, into `offer` (a string the caller frees with
// cwebrtc_free). NULL with `error` set when it cannot.
cwebrtc *cwebrtc_open(const char *const *ice_servers, int count, int gather_ms, char **offer, char *error,
                      size_t error_size);

// Takes the answer's SDP; 0, or -1 with `error` set (an SDP webrtcbin cannot read or take).
int cwebrtc_answer(cwebrtc *peer, const char *sdp, char *error, size_t error_size);

// Waits up to `timeout_ms` for ICE to connect and then DTLS (the peer connection "connected"):
// the milliseconds ICE took, or -1 with `error` set (failed, or not in time); `*dtls_ms` is set to
// those until DTLS was done too (-1 when it was not).
int cwebrtc_wait_connected(cwebrtc *peer, int timeout_ms, int *dtls_ms, char *error, size_t error_size);

// The selected candidates, as `type address:port` each (host, srflx, relay); empty when unknown.
void cwebrtc_selected(cwebrtc *peer, char *local, size_t local_size, char *remote, size_t remote_size);

void cwebrtc_free(char *text);

// Stops the pipeline and frees the peer connection.
void cwebrtc_close(cwebrtc *peer);

#endif

// A WebRTC peer connection that publishes (WHIP's side of it), made of GStreamer's webrtcbin:
// libnice for ICE, OpenSSL for DTLS, libsrtp2 for SRTP. In C because webrtcbin is driven through
// GObject signals and properties with variadic calls Swift cannot make.
#ifndef PODIUM_CWEBRTC_H
#define PODIUM_CWEBRTC_H

#include <stddef.h>
#include <stdint.h>

typedef struct cwebrtc cwebrtc;

// What a peer connection sends: nothing (it only connects, with an H.264 and an Opus
// transceiver), or packets given to cwebrtc_send.
enum { CWEBRTC_VIDEO = 1, CWEBRTC_AUDIO = 2 };

// Starts GStreamer and, on a thread of its own, the process's DTLS certificate, so that a peer
// made meanwhile finds it ready sooner: the thread, which cwebrtc_prepared must wait for before
// the process may end (OpenSSL's cleanup at exit would pull the key's locks from under it), or
// NULL when another call made it already or GStreamer does not start.
void *cwebrtc_prepare(void);
void cwebrtc_prepared(void *preparing);

// Makes a peer connection whose send-only transceivers are bundled on one transport, with the ICE
// servers given (`stun://host:port`, `turn://user:pass@host:port`): H.264 (constrained baseline,
// packetization mode 1, NACK and retransmission) and Opus; with `media` (CWEBRTC_VIDEO, and
// CWEBRTC_AUDIO), those it sends. NULL with `error` set when it cannot.
cwebrtc *cwebrtc_open(const char *const *ice_servers, int count, int media, char *error, size_t error_size);

// The offer, with every candidate gathered in it (at most `gather_ms`), as a string the caller
// frees with cwebrtc_free. A peer that sends media makes it once a first packet of each kind went
// in (its profile is the stream's). NULL with `error` set when it cannot (yet).
char *cwebrtc_offer(cwebrtc *peer, int gather_ms, char *error, size_t error_size);

// Candidates gathered since the offer was made, for trickle ICE: as many as fit in `buffer`, each an
// SDP attribute line ("a=candidate:…\r\n"); `*complete` set once gathering is over and every one was
// taken. The count taken.
int cwebrtc_late_candidates(cwebrtc *peer, char *buffer, size_t size, int *complete);

// Whether it waits for packets of pictures (or, with `audio`, of sound) before it can make its
// offer: their parser and payloader have not said what they carry yet.
int cwebrtc_awaits(cwebrtc *peer, int audio);

// Takes the answer's SDP; 0, or -1 with `error` set (an SDP webrtcbin cannot read or take).
int cwebrtc_answer(cwebrtc *peer, const char *sdp, char *error, size_t error_size);

// Waits up to `timeout_ms` for ICE to connect and then DTLS (the peer connection "connected"):
// the milliseconds from the answer to ICE connected, or with `error` set -1 (failed) or -2 (not in
// time: call again to wait on); `*dtls_ms` is set to those until DTLS was done too.
int cwebrtc_wait_connected(cwebrtc *peer, int timeout_ms, int *dtls_ms, char *error, size_t error_size);

// The selected candidates, as `type address:port` each (host, srflx, relay); empty when unknown.
void cwebrtc_selected(cwebrtc *peer, char *local, size_t local_size, char *remote, size_t remote_size);

// Sends an H.264 access unit (Annex B, with its parameter sets at a keyframe) or, with `audio`, an
// Opus packet, taken at `time_ns` (CLOCK_MONOTONIC) and lasting `duration_ns` (0: not known). 0; 1
// when it was taken before the peer's pipeline started, which cannot send it; -1 when the peer
// connection no longer takes packets. Never blocks: what cannot be sent is dropped.
int cwebrtc_send(cwebrtc *peer, int audio, const void *bytes, size_t size, uint64_t time_ns, uint64_t duration_ns);

// What the receiver said, and how the connection is.
typedef struct {
    // 1 connected, 0 not yet (or connecting again), -1 failed or closed.
    int state;
    // Keyframes asked for (PLI, FIR) since the last poll.
    int keyframe_requests;
    // The receiver's last estimate of the bit rate it can take (REMB); 0 when it sent none.
    int remb_bps;
    // Milliseconds since the last RTCP packet from the receiver; -1 before the first.
    int rtcp_age_ms;
    // From the receiver's last report on the pictures: its highest sequence number (a new value
    // is a new report), the fraction lost since the one before, and the round trip (-1: unknown).
    unsigned report;
    double fraction_lost;
    double round_trip_ms;
    // Totals: picture packets sent, packets sent again, NACKs and keyframe requests received.
    uint64_t video_packets, retransmitted;
    unsigned nacks, keyframes_asked;
} cwebrtc_feedback;

// Reads the connection's state and the receiver's feedback.
void cwebrtc_poll(cwebrtc *peer, cwebrtc_feedback *feedback);

void cwebrtc_free(char *text);

// Stops the pipeline and frees the peer connection.
void cwebrtc_close(cwebrtc *peer);

#endif

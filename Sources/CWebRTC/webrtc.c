// webrtcbin answers its signals through promises, which wait without a main loop, and keeps its
// states as properties, which are read here as they change: the caller's thread drives it all.
#include "cwebrtc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <gst/gst.h>
#include <gst/sdp/sdp.h>
#define GST_USE_UNSTABLE_API
#include <gst/webrtc/webrtc.h>

struct cwebrtc {
    GstElement *pipeline;
    GstElement *webrtc;
};

static void say(char *error, size_t size, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, size, format, arguments);
    va_end(arguments);
}

static long now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1000L + now.tv_nsec / 1000000L;
}

// An error the pipeline posted, if any, into `error`; 1 when there was one.
static int posted_error(cwebrtc *peer, char *error, size_t size) {
    GstBus *bus = gst_element_get_bus(peer->pipeline);
    GstMessage *message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
    gst_object_unref(bus);
    if (!message) return 0;
    GError *failure = NULL;
    gst_message_parse_error(message, &failure, NULL);
    say(error, size, "WebRTC: %s", failure ? failure->message : "an error");
    g_clear_error(&failure);
    gst_message_unref(message);
    return 1;
}

// Emits `signal` with `argument` and a promise, and waits for its reply: NULL with `error` set
// when it failed (the reply holds an "error" then).
static GstStructure *ask(cwebrtc *peer, const char *signal, gpointer argument, char *error, size_t size) {
    GstPromise *promise = gst_promise_new();
    g_signal_emit_by_name(peer->webrtc, signal, argument, promise);
    GstPromiseResult result = gst_promise_wait(promise);
    const GstStructure *reply = result == GST_PROMISE_RESULT_REPLIED ? gst_promise_get_reply(promise) : NULL;
    GError *failure = NULL;
    if (reply && gst_structure_has_field(reply, "error")) {
        gst_structure_get(reply, "error", G_TYPE_ERROR, &failure, NULL);
    }
    GstStructure *copy = NULL;
    if (result != GST_PROMISE_RESULT_REPLIED || failure) {
        say(error, size, "WebRTC refused to %s: %s", signal, failure ? failure->message : "no reply");
    } else {
        copy = reply ? gst_structure_copy(reply) : gst_structure_new_empty("reply");
    }
    g_clear_error(&failure);
    gst_promise_unref(promise);
    return copy;
}

static int add_transceiver(cwebrtc *peer, const char *caps_text) {
    GstCaps *caps = gst_caps_from_string(caps_text);
    GstWebRTCRTPTransceiver *transceiver = NULL;
    g_signal_emit_by_name(peer->webrtc, "add-transceiver", GST_WEBRTC_RTP_TRANSCEIVER_DIRECTION_SENDONLY, caps,
                          &transceiver);
    gst_caps_unref(caps);
    if (!transceiver) return 0;
    gst_object_unref(transceiver);
    return 1;
}

cwebrtc *cwebrtc_open(const char *const *ice_servers, int count, int gather_ms, char **offer, char *error,
                      size_t error_size) {
    *offer = NULL;
    if (!gst_init_check(NULL, NULL, NULL)) {
        say(error, error_size, "GStreamer did not start");
        return NULL;
    }
    cwebrtc *peer = g_new0(cwebrtc, 1);
    peer->pipeline = gst_pipeline_new("podium-webrtc");
    peer->webrtc = gst_element_factory_make("webrtcbin", "webrtc");
    if (!peer->webrtc) {
        say(error, error_size, "GStreamer has no webrtcbin (gstreamer1.0-plugins-bad and gstreamer1.0-nice)");
        cwebrtc_close(peer);
        return NULL;
    }
    gst_bin_add(GST_BIN(peer->pipeline), peer->webrtc);
    g_object_set(peer->webrtc, "bundle-policy", GST_WEBRTC_BUNDLE_POLICY_MAX_BUNDLE, NULL);
    for (int index = 0; index < count; index++) {
        const char *server = ice_servers[index];
        if (g_str_has_prefix(server, "stun://")) {
            g_object_set(peer->webrtc, "stun-server", server, NULL);
        } else {
            gboolean added = FALSE;
            g_signal_emit_by_name(peer->webrtc, "add-turn-server", server, &added);
            if (!added) {
                say(error, error_size, "WebRTC cannot use the TURN server given (%d)", index + 1);
                cwebrtc_close(peer);
                return NULL;
            }
        }
    }
    if (!add_transceiver(peer, "application/x-rtp,media=video,encoding-name=H264,payload=96,clock-rate=90000,"
                               "packetization-mode=(string)1,profile-level-id=(string)42e01f")
        || !add_transceiver(peer, "application/x-rtp,media=audio,encoding-name=OPUS,payload=111,clock-rate=48000,"
                                  "encoding-params=(string)2")) {
        say(error, error_size, "WebRTC made no H.264 or Opus transceiver");
        cwebrtc_close(peer);
        return NULL;
    }
    if (gst_element_set_state(peer->pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
        if (!posted_error(peer, error, error_size)) say(error, error_size, "WebRTC's pipeline did not start");
        cwebrtc_close(peer);
        return NULL;
    }
    GstStructure *made = ask(peer, "create-offer", NULL, error, error_size);
    GstWebRTCSessionDescription *description = NULL;
    if (made) gst_structure_get(made, "offer", GST_TYPE_WEBRTC_SESSION_DESCRIPTION, &description, NULL);
    if (made) gst_structure_free(made);
    if (!description) {
        if (made) say(error, error_size, "WebRTC made no offer");
        cwebrtc_close(peer);
        return NULL;
    }
    GstStructure *set = ask(peer, "set-local-description", description, error, error_size);
    gst_webrtc_session_description_free(description);
    if (!set) {
        cwebrtc_close(peer);
        return NULL;
    }
    gst_structure_free(set);
    // The offer goes whole, its candidates in it: WHIP servers need not take trickled ones.
    long deadline = now_ms() + gather_ms;
    GstWebRTCICEGatheringState gathering = GST_WEBRTC_ICE_GATHERING_STATE_NEW;
    while (now_ms() < deadline) {
        g_object_get(peer->webrtc, "ice-gathering-state", &gathering, NULL);
        if (gathering == GST_WEBRTC_ICE_GATHERING_STATE_COMPLETE) break;
        g_usleep(5000);
    }
    GstWebRTCSessionDescription *local = NULL;
    g_object_get(peer->webrtc, "local-description", &local, NULL);
    if (!local) {
        say(error, error_size, "WebRTC has no local description");
        cwebrtc_close(peer);
        return NULL;
    }
    *offer = gst_sdp_message_as_text(local->sdp);
    gst_webrtc_session_description_free(local);
    return peer;
}

int cwebrtc_answer(cwebrtc *peer, const char *sdp, char *error, size_t error_size) {
    GstSDPMessage *message = NULL;
    if (gst_sdp_message_new_from_text(sdp, &message) != GST_SDP_OK || gst_sdp_message_medias_len(message) == 0) {
        if (message) gst_sdp_message_free(message);
        say(error, error_size, "the answer is not an SDP WebRTC can read");
        return -1;
    }
    GstWebRTCSessionDescription *answer = gst_webrtc_session_description_new(GST_WEBRTC_SDP_TYPE_ANSWER, message);
    GstStructure *set = ask(peer, "set-remote-description", answer, error, error_size);
    gst_webrtc_session_description_free(answer);
    if (!set) return -1;
    gst_structure_free(set);
    return 0;
}

int cwebrtc_wait_connected(cwebrtc *peer, int timeout_ms, int *dtls_ms, char *error, size_t error_size) {
    long start = now_ms(), deadline = start + timeout_ms;
    int ice_ms = -1;
    *dtls_ms = -1;
    while (now_ms() < deadline) {
        if (posted_error(peer, error, error_size)) return -1;
        GstWebRTCICEConnectionState ice = GST_WEBRTC_ICE_CONNECTION_STATE_NEW;
        GstWebRTCPeerConnectionState connection = GST_WEBRTC_PEER_CONNECTION_STATE_NEW;
        g_object_get(peer->webrtc, "ice-connection-state", &ice, "connection-state", &connection, NULL);
        if (ice == GST_WEBRTC_ICE_CONNECTION_STATE_FAILED) {
            say(error, error_size, "ICE failed: no pair of candidates connected");
            return -1;
        }
        if (connection == GST_WEBRTC_PEER_CONNECTION_STATE_FAILED) {
            say(error, error_size, "DTLS failed after ICE connected");
            return -1;
        }
        if (ice_ms < 0 && (ice == GST_WEBRTC_ICE_CONNECTION_STATE_CONNECTED
                           || ice == GST_WEBRTC_ICE_CONNECTION_STATE_COMPLETED)) {
            ice_ms = (int)(now_ms() - start);
        }
        if (connection == GST_WEBRTC_PEER_CONNECTION_STATE_CONNECTED) {
            *dtls_ms = (int)(now_ms() - start);
            if (ice_ms < 0) ice_ms = *dtls_ms;
            return ice_ms;
        }
        g_usleep(2000);
    }
    say(error, error_size, ice_ms < 0 ? "ICE did not connect within %d ms" : "DTLS did not finish within %d ms",
        timeout_ms);
    return -1;
}

// The candidate `id` of `stats` as `type address:port`.
static void describe_candidate(const GstStructure *stats, const char *id, char *text, size_t size) {
    const GValue *value = id ? gst_structure_get_value(stats, id) : NULL;
    const GstStructure *candidate = value && GST_VALUE_HOLDS_STRUCTURE(value) ? gst_value_get_structure(value) : NULL;
    if (!candidate) return;
    const char *type = gst_structure_get_string(candidate, "candidate-type");
    const char *address = gst_structure_get_string(candidate, "address");
    guint port = 0;
    gst_structure_get_uint(candidate, "port", &port);
    snprintf(text, size, "%s %s:%u", type ? type : "?", address ? address : "?", port);
}

typedef struct {
    const GstStructure *stats;
    char *local, *remote;
    size_t local_size, remote_size;
} pair_search;

static gboolean find_pair(GQuark field, const GValue *value, gpointer data) {
    (void)field;
    pair_search *search = data;
    if (!GST_VALUE_HOLDS_STRUCTURE(value)) return TRUE;
    const GstStructure *entry = gst_value_get_structure(value);
    GstWebRTCStatsType type = 0;
    if (!gst_structure_get(entry, "type", GST_TYPE_WEBRTC_STATS_TYPE, &type, NULL)
        || type != GST_WEBRTC_STATS_CANDIDATE_PAIR) {
        return TRUE;
    }
    describe_candidate(search->stats, gst_structure_get_string(entry, "local-candidate-id"), search->local,
                       search->local_size);
    describe_candidate(search->stats, gst_structure_get_string(entry, "remote-candidate-id"), search->remote,
                       search->remote_size);
    return FALSE;
}

void cwebrtc_selected(cwebrtc *peer, char *local, size_t local_size, char *remote, size_t remote_size) {
    local[0] = remote[0] = 0;
    char ignored[64];
    GstStructure *stats = ask(peer, "get-stats", NULL, ignored, sizeof ignored);
    if (!stats) return;
    pair_search search = { stats, local, remote, local_size, remote_size };
    gst_structure_foreach(stats, find_pair, &search);
    gst_structure_free(stats);
}

void cwebrtc_free(char *text) { g_free(text); }

void cwebrtc_close(cwebrtc *peer) {
    if (!peer) return;
    if (peer->pipeline) {
        gst_element_set_state(peer->pipeline, GST_STATE_NULL);
        gst_object_unref(peer->pipeline);
    }
    g_free(peer);
}

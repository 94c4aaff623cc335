// webrtcbin answers its signals through promises, which wait without a main loop, and keeps its
// states as properties, which are read here as they change: the caller's thread drives it all.
#include "cwebrtc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <gst/gst.h>
#include <gst/rtp/gstrtcpbuffer.h>
#include <gst/sdp/sdp.h>
#define GST_USE_UNSTABLE_API
#include <gst/webrtc/webrtc.h>

struct cwebrtc {
    GstElement *pipeline;
    GstElement *webrtc;
    // With media: where packets go in, and the payloaders whose statistics name each stream's SSRC.
    GstElement *video_source, *audio_source, *video_payloader, *audio_payloader;
    GstWebRTCRTPTransceiver *video_transceiver;
    // webrtcbin's RTP session (all media bundled on one), once there is one.
    GObject *session;
    // Written on GStreamer's threads, read by the caller's: keyframes asked for (PLI, FIR), the last
    // REMB's bit rate, and when the last RTCP packet from the receiver came (monotonic ms).
    gint keyframe_requests;
    gint remb_bps;
    gint last_rtcp_ms;
    // The pictures' SSRC, and the receiver's last report block about them, under `lock`.
    guint video_ssrc;
    GMutex lock;
    guint report_sequence, report_lost;
    gint report_round_trip;
    // Retransmissions it may still send (see retransmission_asked), and the pictures' sequence
    // number when it last earned some; under `lock`.
    double retransmissions;
    guint earned_at;
    // Candidates gathered after the offer was made ("a=candidate:…" lines), under `lock`.
    gboolean offered;
    GPtrArray *late_candidates;
    // With no STUN or TURN server, only the host's own candidates: how many came, and when the
    // last did (monotonic ms), under `lock`.
    gboolean hosts_only;
    guint candidates;
    long last_candidate_ms;
    // When the answer was taken, and how long after it ICE connected (-1: not yet), in ms.
    long answered_at;
    int ice_ms;
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

// A promise's answer, waited for with a deadline; freed with the promise.
typedef struct {
    GMutex lock;
    GCond changed;
    gboolean answered;
} waiter;

static void promise_changed(GstPromise *promise, gpointer data) {
    (void)promise;
    waiter *waiting = data;
    g_mutex_lock(&waiting->lock);
    waiting->answered = TRUE;
    g_cond_broadcast(&waiting->changed);
    g_mutex_unlock(&waiting->lock);
}

static void waiter_free(gpointer data) {
    waiter *waiting = data;
    g_mutex_clear(&waiting->lock);
    g_cond_clear(&waiting->changed);
    g_free(waiting);
}

// Emits `signal` with `argument` and a promise, and waits up to 5 s for its reply: NULL with
// `error` set when it failed (the reply holds an "error" then) or did not come.
static GstStructure *ask(cwebrtc *peer, const char *signal, gpointer argument, char *error, size_t size) {
    waiter *waiting = g_new0(waiter, 1);
    g_mutex_init(&waiting->lock);
    g_cond_init(&waiting->changed);
    GstPromise *promise = gst_promise_new_with_change_func(promise_changed, waiting, waiter_free);
    g_signal_emit_by_name(peer->webrtc, signal, argument, promise);
    gint64 deadline = g_get_monotonic_time() + 5 * G_TIME_SPAN_SECOND;
    g_mutex_lock(&waiting->lock);
    while (!waiting->answered && g_cond_wait_until(&waiting->changed, &waiting->lock, deadline)) {}
    gboolean answered = waiting->answered;
    g_mutex_unlock(&waiting->lock);
    if (!answered) gst_promise_interrupt(promise);
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

// A send-only transceiver for `caps` (its codec preferences); `nack`: retransmits what the
// receiver says it lost (RFC 4588), from a buffer of the last second.
static int add_transceiver(cwebrtc *peer, const char *caps_text, gboolean nack) {
    GstCaps *caps = gst_caps_from_string(caps_text);
    GstWebRTCRTPTransceiver *transceiver = NULL;
    g_signal_emit_by_name(peer->webrtc, "add-transceiver", GST_WEBRTC_RTP_TRANSCEIVER_DIRECTION_SENDONLY, caps,
                          &transceiver);
    gst_caps_unref(caps);
    if (!transceiver) return 0;
    if (nack) g_object_set(transceiver, "do-nack", TRUE, NULL);
    gst_object_unref(transceiver);
    return 1;
}

static const char *video_caps = "application/x-rtp,media=video,encoding-name=H264,payload=96,clock-rate=90000,"
                                "packetization-mode=(string)1,profile-level-id=(string)42e01f,"
                                "level-asymmetry-allowed=(string)1";
static const char *audio_caps = "application/x-rtp,media=audio,encoding-name=OPUS,payload=111,clock-rate=48000,"
                                "encoding-params=(string)2";

// Makes `factory`'s element in the pipeline; NULL with `error` set when GStreamer has none.
static GstElement *make(cwebrtc *peer, const char *factory, char *error, size_t size) {
    GstElement *element = gst_element_factory_make(factory, NULL);
    if (!element) {
        say(error, size, "GStreamer has no %s (gstreamer1.0-plugins-good and -bad)", factory);
        return NULL;
    }
    gst_bin_add(GST_BIN(peer->pipeline), element);
    return element;
}

// A keyframe asked for by the receiver (PLI or FIR, which the RTP session turns into this event on
// its way upstream): counted for the caller, who asks its encoder; it goes no further.
static GstPadProbeReturn keyframe_asked(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    (void)pad;
    GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
    if (!event || !gst_event_has_name(event, "GstForceKeyUnit")) return GST_PAD_PROBE_OK;
    g_atomic_int_inc(&((cwebrtc *)data)->keyframe_requests);
    return GST_PAD_PROBE_DROP;
}

// A source of encoded packets into webrtcbin: appsrc (live, timestamps given), `parser` (if any),
// the payloader, the transceiver made for its pad send-only. Packets that would wait behind 4 MB
// are dropped, never blocked on.
static GstElement *add_branch(cwebrtc *peer, const char *caps, const char *parser, const char *payloader,
                              GstElement **payloader_element, GstWebRTCRTPTransceiver **transceiver, char *error,
                              size_t size) {
    GstElement *source = make(peer, "appsrc", error, size);
    GstElement *parse = parser ? make(peer, parser, error, size) : NULL;
    GstElement *pay = make(peer, payloader, error, size);
    if (!source || (parser && !parse) || !pay) return NULL;
    GstCaps *source_caps = gst_caps_from_string(caps);
    g_object_set(source, "is-live", TRUE, "format", GST_FORMAT_TIME, "do-timestamp", FALSE, "caps", source_caps,
                 "max-bytes", (guint64)(4 << 20), "block", FALSE, "leaky-type", 2 /* downstream: the newest go */,
                 NULL);
    gst_caps_unref(source_caps);
    // WebRTC's usual packet size, which leaves room for SRTP, TURN and a VPN in a 1500-byte MTU.
    g_object_set(pay, "mtu", 1200, NULL);
    GstPad *pad = gst_element_request_pad_simple(peer->webrtc, "sink_%u");
    GstPad *from = gst_element_get_static_pad(pay, "src");
    gboolean linked = parse ? gst_element_link_many(source, parse, pay, NULL) : gst_element_link(source, pay);
    linked = linked && pad && gst_pad_link(from, pad) == GST_PAD_LINK_OK;
    gst_object_unref(from);
    if (pad) {
        g_object_get(pad, "transceiver", transceiver, NULL);
        gst_object_unref(pad);
    }
    if (!linked || !*transceiver) {
        say(error, size, "WebRTC's %s branch did not link", payloader);
        return NULL;
    }
    g_object_set(*transceiver, "direction", GST_WEBRTC_RTP_TRANSCEIVER_DIRECTION_SENDONLY, NULL);
    *payloader_element = pay;
    return source;
}

// H.264 (each keyframe with its parameter sets, which a receiver that joins or lost one needs) and,
// with `audio`, Opus, each on a transceiver of its own. The offer says the profile the encoder
// chose, so it is made once the first keyframe went through (cwebrtc_offer).
static int add_media(cwebrtc *peer, int audio, char *error, size_t size) {
    GstWebRTCRTPTransceiver *video = NULL, *sound = NULL;
    peer->video_source = add_branch(peer, "video/x-h264,stream-format=byte-stream,alignment=au", "h264parse",
                                    "rtph264pay", &peer->video_payloader, &video, error, size);
    if (!peer->video_source) return 0;
    g_object_set(video, "do-nack", TRUE, NULL);
    peer->video_transceiver = video;
    g_object_set(peer->video_payloader, "config-interval", -1, "aggregate-mode", 1 /* zero latency */, "pt", 96,
                 NULL);
    GstPad *pad = gst_element_get_static_pad(peer->video_payloader, "src");
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_UPSTREAM, keyframe_asked, peer, NULL);
    gst_object_unref(pad);
    if (!audio) return 1;
    peer->audio_source = add_branch(peer, "audio/x-opus,channel-mapping-family=0,channels=2,rate=48000", NULL,
                                    "rtpopuspay", &peer->audio_payloader, &sound, error, size);
    if (!peer->audio_source) return 0;
    gst_object_unref(sound);
    g_object_set(peer->audio_payloader, "pt", 111, NULL);
    return 1;
}

// A field of a payloader's statistics: the SSRC it stamps its packets with, the last sequence
// number it stamped (0 before its first packet).
static guint payloader_stat(GstElement *payloader, const char *field) {
    if (!payloader) return 0;
    GstStructure *stats = NULL;
    guint value = 0;
    g_object_get(payloader, "stats", &stats, NULL);
    if (stats) {
        gst_structure_get_uint(stats, field, &value);
        gst_structure_free(stats);
    }
    return value;
}

// A packet the receiver asked for again (a NACK, which the RTP session turns into this event on its
// way to the retransmission sender): sent again while the budget allows, a quarter of the packets
// sent first, at most 100 ahead. Lost packets are asked for again and again (every round trip), and
// on a congested path each answer is lost as well: without a bound, retransmissions took twice the
// pictures' own rate into a 1 Mbit/s link and kept it losing 60-85 % for five seconds.
static GstPadProbeReturn retransmission_asked(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    (void)pad;
    GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
    cwebrtc *peer = data;
    if (!event || !gst_event_has_name(event, "GstRTPRetransmissionRequest") || !peer->video_payloader) {
        return GST_PAD_PROBE_OK;
    }
    guint seqnum = payloader_stat(peer->video_payloader, "seqnum");
    g_mutex_lock(&peer->lock);
    guint16 sent = (guint16)(seqnum - peer->earned_at);
    peer->earned_at = seqnum;
    peer->retransmissions = MIN(100.0, peer->retransmissions + sent / 4.0);
    gboolean allowed = peer->retransmissions >= 1;
    if (allowed) peer->retransmissions -= 1;
    g_mutex_unlock(&peer->lock);
    return allowed ? GST_PAD_PROBE_OK : GST_PAD_PROBE_DROP;
}

// webrtcbin makes its retransmission sender as it needs one: its buffer is bounded by time, a
// second (a packet asked for later would come too late to be shown anyway), and what it sends again
// by a budget.
static void element_added(GstBin *bin, GstBin *child, GstElement *element, gpointer data) {
    (void)bin, (void)child;
    GstElementFactory *factory = gst_element_get_factory(element);
    if (!factory || !g_str_equal(GST_OBJECT_NAME(factory), "rtprtxsend")) return;
    g_object_set(element, "max-size-time", 1000u, "max-size-packets", 0u, NULL);
    GstPad *pad = gst_element_get_static_pad(element, "src");
    if (!pad) return;
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_UPSTREAM, retransmission_asked, data, NULL);
    gst_object_unref(pad);
}

// A local candidate, gathered: kept for trickling when the offer has gone without it (bundled,
// every candidate is the first m-line's).
static void candidate_gathered(GstElement *webrtc, guint mline, gchar *candidate, gpointer data) {
    (void)webrtc, (void)mline;
    cwebrtc *peer = data;
    if (!candidate || !*candidate) return;
    g_mutex_lock(&peer->lock);
    peer->candidates++;
    peer->last_candidate_ms = now_ms();
    if (peer->offered && peer->late_candidates->len < 256) {
        g_ptr_array_add(peer->late_candidates, g_strdup_printf("a=%s\r\n", candidate));
    }
    g_mutex_unlock(&peer->lock);
}

int cwebrtc_late_candidates(cwebrtc *peer, char *buffer, size_t size, int *complete) {
    GstWebRTCICEGatheringState gathering = GST_WEBRTC_ICE_GATHERING_STATE_NEW;
    g_object_get(peer->webrtc, "ice-gathering-state", &gathering, NULL);
    size_t used = 0;
    guint taken = 0;
    g_mutex_lock(&peer->lock);
    for (; taken < peer->late_candidates->len; taken++) {
        const char *line = g_ptr_array_index(peer->late_candidates, taken);
        size_t length = strlen(line);
        if (used + length + 1 > size) break;
        memcpy(buffer + used, line, length);
        used += length;
    }
    if (size) buffer[used] = 0;
    g_ptr_array_remove_range(peer->late_candidates, 0, taken);
    *complete = gathering == GST_WEBRTC_ICE_GATHERING_STATE_COMPLETE && peer->late_candidates->len == 0;
    g_mutex_unlock(&peer->lock);
    return (int)taken;
}

// The process's DTLS certificate is an RSA key that the first DTLS element makes and GStreamer
// keeps for every later one: about 0.25 s of a core, which the first offer waited for.
static gpointer make_certificate(gpointer unused) {
    (void)unused;
    GstElement *dtls = gst_element_factory_make("dtlsdec", NULL);
    if (dtls) gst_object_unref(dtls);
    return NULL;
}

void *cwebrtc_prepare(void) {
    static gint started = 0;
    if (!gst_init_check(NULL, NULL, NULL) || !g_atomic_int_compare_and_exchange(&started, 0, 1)) return NULL;
    return g_thread_new("podium-dtls-key", make_certificate, NULL);
}

void cwebrtc_prepared(void *preparing) {
    if (preparing) g_thread_join(preparing);
}

cwebrtc *cwebrtc_open(const char *const *ice_servers, int count, int media, char *error, size_t error_size) {
    if (!gst_init_check(NULL, NULL, NULL)) {
        say(error, error_size, "GStreamer did not start");
        return NULL;
    }
    cwebrtc *peer = g_new0(cwebrtc, 1);
    peer->ice_ms = -1;
    g_mutex_init(&peer->lock);
    peer->late_candidates = g_ptr_array_new_with_free_func(g_free);
    peer->pipeline = gst_pipeline_new("podium-webrtc");
    peer->webrtc = gst_element_factory_make("webrtcbin", "webrtc");
    if (!peer->webrtc) {
        say(error, error_size, "GStreamer has no webrtcbin (gstreamer1.0-plugins-bad and gstreamer1.0-nice)");
        cwebrtc_close(peer);
        return NULL;
    }
    gst_bin_add(GST_BIN(peer->pipeline), peer->webrtc);
    g_signal_connect(peer->pipeline, "deep-element-added", G_CALLBACK(element_added), peer);
    g_signal_connect(peer->webrtc, "on-ice-candidate", G_CALLBACK(candidate_gathered), peer);
    g_object_set(peer->webrtc, "bundle-policy", GST_WEBRTC_BUNDLE_POLICY_MAX_BUNDLE, NULL);
    peer->hosts_only = count == 0;
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
    if (media ? !add_media(peer, media & CWEBRTC_AUDIO, error, error_size)
              : !add_transceiver(peer, video_caps, TRUE) || !add_transceiver(peer, audio_caps, FALSE)) {
        if (!media) say(error, error_size, "WebRTC made no H.264 or Opus transceiver");
        cwebrtc_close(peer);
        return NULL;
    }
    if (gst_element_set_state(peer->pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
        if (!posted_error(peer, error, error_size)) say(error, error_size, "WebRTC's pipeline did not start");
        cwebrtc_close(peer);
        return NULL;
    }
    return peer;
}

// Whether every branch's payloader told webrtcbin its caps (a first packet went through).
static int has_caps(GstElement *payloader) {
    if (!payloader) return 1;
    GstPad *pad = gst_element_get_static_pad(payloader, "src");
    gboolean has = gst_pad_has_current_caps(pad);
    gst_object_unref(pad);
    return has;
}

int cwebrtc_awaits(cwebrtc *peer, int audio) {
    return !has_caps(audio ? peer->audio_payloader : peer->video_payloader);
}

// The pictures' codec as the payloader made it, and REMB offered beside NACK and PLI: a receiver
// that takes it (Chromium, Janus) sends its estimate of the bit rate the path carries, which
// rises and falls with the delay its packets meet, before any is lost. (Transport-wide feedback
// would leave that estimate to the sender, and GStreamer 1.22 has no estimator for it.)
static void offer_remb(cwebrtc *peer) {
    if (!peer->video_transceiver) return;
    GstPad *pad = gst_element_get_static_pad(peer->video_payloader, "src");
    GstCaps *caps = gst_pad_get_current_caps(pad);
    gst_object_unref(pad);
    if (!caps) return;
    GstCaps *preferred = gst_caps_copy(caps);
    gst_caps_unref(caps);
    gst_caps_set_simple(preferred, "rtcp-fb-goog-remb", G_TYPE_BOOLEAN, TRUE, NULL);
    g_object_set(peer->video_transceiver, "codec-preferences", preferred, NULL);
    gst_caps_unref(preferred);
}

char *cwebrtc_offer(cwebrtc *peer, int gather_ms, char *error, size_t error_size) {
    if (cwebrtc_awaits(peer, 0) || cwebrtc_awaits(peer, 1)) {
        say(error, error_size, "WebRTC has no packets to describe yet");
        return NULL;
    }
    offer_remb(peer);
    GstStructure *made = ask(peer, "create-offer", NULL, error, error_size);
    GstWebRTCSessionDescription *description = NULL;
    if (made) gst_structure_get(made, "offer", GST_TYPE_WEBRTC_SESSION_DESCRIPTION, &description, NULL);
    if (made) gst_structure_free(made);
    if (!description) {
        if (made) say(error, error_size, "WebRTC made no offer");
        return NULL;
    }
    GstStructure *set = ask(peer, "set-local-description", description, error, error_size);
    gst_webrtc_session_description_free(description);
    if (!set) return NULL;
    gst_structure_free(set);
    // The offer goes with the candidates gathered within `gather_ms`, every one when gathering is
    // quick: a WHIP server need not take trickled ones. The host's own come together at once, and
    // libnice says it is done 200 ms later: with no server to ask, 20 ms without a new one is enough.
    long deadline = now_ms() + gather_ms;
    GstWebRTCICEGatheringState gathering = GST_WEBRTC_ICE_GATHERING_STATE_NEW;
    while (now_ms() < deadline) {
        g_object_get(peer->webrtc, "ice-gathering-state", &gathering, NULL);
        if (gathering == GST_WEBRTC_ICE_GATHERING_STATE_COMPLETE) break;
        g_mutex_lock(&peer->lock);
        gboolean settled = peer->hosts_only && peer->candidates > 0 && now_ms() - peer->last_candidate_ms >= 20;
        g_mutex_unlock(&peer->lock);
        if (settled) break;
        g_usleep(5000);
    }
    // From here candidates are late (one gathered meanwhile may be in the offer too: no harm).
    g_mutex_lock(&peer->lock);
    peer->offered = TRUE;
    g_ptr_array_set_size(peer->late_candidates, 0);
    g_mutex_unlock(&peer->lock);
    GstWebRTCSessionDescription *local = NULL;
    g_object_get(peer->webrtc, "local-description", &local, NULL);
    if (!local) {
        say(error, error_size, "WebRTC has no local description");
        return NULL;
    }
    char *offer = gst_sdp_message_as_text(local->sdp);
    gst_webrtc_session_description_free(local);
    return offer;
}

// The middle 32 bits of the NTP time now (1/65536 s), as RTCP times a round trip with: the RTP
// session stamps its sender reports with the wall clock on NTP's epoch.
static guint32 ntp_middle_now(void) {
    gint64 now = g_get_real_time();
    guint64 seconds = (guint64)(now / G_USEC_PER_SEC) + 2208988800u;
    guint64 fraction = (guint64)(now % G_USEC_PER_SEC) * 65536 / G_USEC_PER_SEC;
    return (guint32)(((seconds & 0xffff) << 16) | fraction);
}

// RTCP from the receiver: when it came, and its report block about the pictures (a compound packet
// may report on several streams, the retransmissions' and the sound's among them).
static void rtcp_received(GObject *session, GstBuffer *buffer, gpointer data) {
    (void)session;
    cwebrtc *peer = data;
    g_atomic_int_set(&peer->last_rtcp_ms, (gint)(now_ms() & G_MAXINT));
    guint video = g_atomic_int_get(&peer->video_ssrc);
    GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
    if (!video || !gst_rtcp_buffer_map(buffer, GST_MAP_READ, &rtcp)) return;
    GstRTCPPacket packet;
    for (gboolean more = gst_rtcp_buffer_get_first_packet(&rtcp, &packet); more;
         more = gst_rtcp_packet_move_to_next(&packet)) {
        GstRTCPType type = gst_rtcp_packet_get_type(&packet);
        if (type != GST_RTCP_TYPE_RR && type != GST_RTCP_TYPE_SR) continue;
        for (guint index = 0; index < gst_rtcp_packet_get_rb_count(&packet); index++) {
            guint32 ssrc = 0, highest = 0, jitter = 0, lsr = 0, dlsr = 0;
            guint8 lost = 0;
            gint32 total = 0;
            gst_rtcp_packet_get_rb(&packet, index, &ssrc, &lost, &total, &highest, &jitter, &lsr, &dlsr);
            if (ssrc != video) continue;
            g_mutex_lock(&peer->lock);
            peer->report_sequence = highest;
            peer->report_lost = lost;
            peer->report_round_trip = lsr ? (gint)(guint32)(ntp_middle_now() - lsr - dlsr) : -1;
            g_mutex_unlock(&peer->lock);
        }
    }
    gst_rtcp_buffer_unmap(&rtcp);
}

// A receiver's estimate of what it can take (REMB: a payload-specific feedback, 206, of the
// application-layer type, 15, whose FCI is "REMB", a count of SSRCs, a 6-bit exponent and an
// 18-bit mantissa).
static void feedback_received(GObject *session, guint type, guint fbtype, guint sender, guint media,
                              GstBuffer *fci, gpointer data) {
    (void)session, (void)sender, (void)media;
    if (type != 206 || fbtype != 15 || !fci) return;
    guint8 bytes[8];
    if (gst_buffer_extract(fci, 0, bytes, sizeof bytes) != sizeof bytes || memcmp(bytes, "REMB", 4) != 0) return;
    guint64 mantissa = ((guint64)(bytes[5] & 3) << 16) | ((guint64)bytes[6] << 8) | bytes[7];
    guint64 bits = mantissa << (bytes[5] >> 2);
    g_atomic_int_set(&((cwebrtc *)data)->remb_bps, (gint)MIN(bits, (guint64)G_MAXINT));
}

// Follows the RTP session that carries every stream (bundled: session 0), once webrtcbin made it.
static void watch_session(cwebrtc *peer) {
    if (peer->session || !peer->video_source) return;
    GstElement *rtpbin = gst_bin_get_by_name(GST_BIN(peer->webrtc), "rtpbin");
    if (!rtpbin) return;
    GObject *session = NULL;
    g_signal_emit_by_name(rtpbin, "get-internal-session", 0u, &session);
    gst_object_unref(rtpbin);
    if (!session) return;
    peer->session = session;
    g_signal_connect(session, "on-receiving-rtcp", G_CALLBACK(rtcp_received), peer);
    g_signal_connect(session, "on-feedback-rtcp", G_CALLBACK(feedback_received), peer);
}

int cwebrtc_answer(cwebrtc *peer, const char *sdp, char *error, size_t error_size) {
    GstSDPMessage *message = NULL;
    if (gst_sdp_message_new_from_text(sdp, &message) != GST_SDP_OK || gst_sdp_message_medias_len(message) == 0) {
        if (message) gst_sdp_message_free(message);
        say(error, error_size, "the answer is not an SDP WebRTC can read");
        return -1;
    }
    GstWebRTCSessionDescription *answer = gst_webrtc_session_description_new(GST_WEBRTC_SDP_TYPE_ANSWER, message);
    peer->answered_at = now_ms();
    GstStructure *set = ask(peer, "set-remote-description", answer, error, error_size);
    gst_webrtc_session_description_free(answer);
    if (!set) return -1;
    gst_structure_free(set);
    watch_session(peer);
    return 0;
}

int cwebrtc_wait_connected(cwebrtc *peer, int timeout_ms, int *dtls_ms, char *error, size_t error_size) {
    long deadline = now_ms() + timeout_ms;
    *dtls_ms = -1;
    while (1) {
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
        if (peer->ice_ms < 0 && (ice == GST_WEBRTC_ICE_CONNECTION_STATE_CONNECTED
                                 || ice == GST_WEBRTC_ICE_CONNECTION_STATE_COMPLETED)) {
            peer->ice_ms = (int)(now_ms() - peer->answered_at);
        }
        if (connection == GST_WEBRTC_PEER_CONNECTION_STATE_CONNECTED) {
            *dtls_ms = (int)(now_ms() - peer->answered_at);
            if (peer->ice_ms < 0) peer->ice_ms = *dtls_ms;
            return peer->ice_ms;
        }
        if (now_ms() >= deadline) break;
        g_usleep(2000);
    }
    say(error, error_size, peer->ice_ms < 0 ? "ICE did not connect" : "DTLS did not finish");
    return -2;
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

int cwebrtc_send(cwebrtc *peer, int audio, const void *bytes, size_t size, uint64_t time_ns, uint64_t duration_ns) {
    GstElement *source = audio ? peer->audio_source : peer->video_source;
    if (!source) return -1;
    // Running time on the pipeline's clock, which is CLOCK_MONOTONIC as the caller's times are: RTP
    // times and sender reports then say when each picture and each sound was taken.
    GstClockTime base = gst_element_get_base_time(peer->pipeline);
    if (time_ns < base) return 1;
    // One copy, which costs little beside encoding it.
    GstBuffer *buffer = gst_buffer_new_memdup(bytes, size);
    GST_BUFFER_PTS(buffer) = GST_BUFFER_DTS(buffer) = time_ns - base;
    GST_BUFFER_DURATION(buffer) = duration_ns ? duration_ns : GST_CLOCK_TIME_NONE;
    GstFlowReturn flow = GST_FLOW_ERROR;
    g_signal_emit_by_name(source, "push-buffer", buffer, &flow);
    gst_buffer_unref(buffer);
    return flow == GST_FLOW_OK ? 0 : -1;
}

void cwebrtc_poll(cwebrtc *peer, cwebrtc_feedback *feedback) {
    memset(feedback, 0, sizeof *feedback);
    feedback->round_trip_ms = -1;
    GstWebRTCPeerConnectionState connection = GST_WEBRTC_PEER_CONNECTION_STATE_NEW;
    g_object_get(peer->webrtc, "connection-state", &connection, NULL);
    feedback->state = connection == GST_WEBRTC_PEER_CONNECTION_STATE_CONNECTED ? 1
        : connection == GST_WEBRTC_PEER_CONNECTION_STATE_FAILED || connection == GST_WEBRTC_PEER_CONNECTION_STATE_CLOSED
        ? -1 : 0;
    char ignored[8];
    if (posted_error(peer, ignored, sizeof ignored)) feedback->state = -1;
    feedback->keyframe_requests = g_atomic_int_and((guint *)&peer->keyframe_requests, 0);
    feedback->remb_bps = g_atomic_int_get(&peer->remb_bps);
    gint last = g_atomic_int_get(&peer->last_rtcp_ms);
    feedback->rtcp_age_ms = last ? (int)((now_ms() & G_MAXINT) - last) : -1;
    watch_session(peer);
    if (!peer->session) return;
    guint video = payloader_stat(peer->video_payloader, "ssrc"), audio = payloader_stat(peer->audio_payloader, "ssrc");
    g_atomic_int_set(&peer->video_ssrc, video);
    g_mutex_lock(&peer->lock);
    feedback->report = peer->report_sequence;
    feedback->fraction_lost = peer->report_lost / 256.0;
    // In units of 1/65536 s; none when the receiver had no sender report to time it with.
    feedback->round_trip_ms = peer->report_round_trip >= 0 ? peer->report_round_trip * 1000.0 / 65536.0 : -1;
    g_mutex_unlock(&peer->lock);
    GstStructure *stats = NULL;
    g_object_get(peer->session, "stats", &stats, NULL);
    if (!stats) return;
    // A GValueArray, which GLib deprecated but rtpsession still hands out.
    const GValue *sources = gst_structure_get_value(stats, "source-stats");
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    GValueArray *array = sources && g_str_equal(G_VALUE_TYPE_NAME(sources), "GValueArray")
        ? g_value_get_boxed(sources) : NULL;
    guint count = array ? array->n_values : 0;
    G_GNUC_END_IGNORE_DEPRECATIONS
    for (guint index = 0; index < count; index++) {
        G_GNUC_BEGIN_IGNORE_DEPRECATIONS
        const GValue *value = &array->values[index];
        G_GNUC_END_IGNORE_DEPRECATIONS
        if (!GST_VALUE_HOLDS_STRUCTURE(value)) continue;
        const GstStructure *source = gst_value_get_structure(value);
        gboolean internal = FALSE, sender = FALSE;
        guint ssrc = 0;
        gst_structure_get(source, "internal", G_TYPE_BOOLEAN, &internal, "is-sender", G_TYPE_BOOLEAN, &sender,
                          "ssrc", G_TYPE_UINT, &ssrc, NULL);
        if (!internal) continue;
        if (!sender || ssrc == audio) continue;
        guint64 packets = 0;
        gst_structure_get_uint64(source, "packets-sent", &packets);
        if (ssrc != video) {
            // Neither payloader's: the retransmission stream's.
            feedback->retransmitted += packets;
            continue;
        }
        feedback->video_packets = packets;
        guint nacks = 0, plis = 0, firs = 0;
        gst_structure_get(source, "recv-nack-count", G_TYPE_UINT, &nacks, "recv-pli-count", G_TYPE_UINT, &plis,
                          "recv-fir-count", G_TYPE_UINT, &firs, NULL);
        feedback->nacks = nacks;
        feedback->keyframes_asked = plis + firs;
    }
    gst_structure_free(stats);
}

void cwebrtc_free(char *text) { g_free(text); }

void cwebrtc_close(cwebrtc *peer) {
    if (!peer) return;
    if (peer->session) g_object_unref(peer->session);
    if (peer->video_transceiver) gst_object_unref(peer->video_transceiver);
    if (peer->pipeline) {
        gst_element_set_state(peer->pipeline, GST_STATE_NULL);
        gst_object_unref(peer->pipeline);
    }
    g_ptr_array_free(peer->late_candidates, TRUE);
    g_mutex_clear(&peer->lock);
    g_free(peer);
}

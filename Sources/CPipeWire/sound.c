// Sound recorded from one PipeWire node, with the graph's own timing (see cpipewire.h).
//
// The stream asks for 32-bit float stereo at 48 kHz (PipeWire converts), 20 ms at a time. Each
// block is stamped with when it was heard from `pw_stream_get_time_n`: the graph cycle's time on
// CLOCK_MONOTONIC, less the delay from the device to the stream (for a sink's monitor, a
// negative delay: the room hears it after the stream has it). These are what the graph itself
// runs on, not reports of a protocol layer above it, and they move only when the graph does.
#include "cpipewire.h"
#include "streams.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pipewire/pipewire.h>
#include <spa/param/audio/format-utils.h>
#include <spa/utils/result.h>

enum { SOUND_RATE = 48000, SOUND_CHANNELS = 2 };

struct cpw_sound {
    struct pw_thread_loop *loop;
    struct pw_context *context;
    struct pw_core *core;
    struct spa_hook core_listener;
    struct pw_stream *stream;
    struct spa_hook stream_listener;
    cpw_sound_handler on_sound;
    cpw_state_handler on_state;
    void *handler_context;
    int closing;
};

static void on_process(void *data) {
    struct cpw_sound *sound = data;
    struct pw_buffer *buffer = pw_stream_dequeue_buffer(sound->stream);
    if (buffer == NULL) return;
    struct spa_data *plane = &buffer->buffer->datas[0];
    uint32_t offset = SPA_MIN(plane->chunk->offset, plane->maxsize);
    uint32_t size = SPA_MIN(plane->chunk->size, plane->maxsize - offset);
    uint32_t frames = size / (sizeof(float) * SOUND_CHANNELS);
    if (plane->data != NULL && frames > 0) {
        struct pw_time time;
        int64_t heard;
        if (pw_stream_get_time_n(sound->stream, &time, sizeof time) == 0 && time.rate.denom > 0 && time.now > 0) {
            // The delay is counted in the graph's rate.
            int64_t delay = time.delay * (int64_t)SPA_NSEC_PER_SEC * time.rate.num / time.rate.denom;
            heard = time.now - delay;
        } else {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            heard = SPA_TIMESPEC_TO_NSEC(&now);
        }
        sound->on_sound(sound->handler_context, (const float *)SPA_PTROFF(plane->data, offset, void), frames, heard);
    }
    pw_stream_queue_buffer(sound->stream, buffer);
}

static void on_state_changed(void *data, enum pw_stream_state old, enum pw_stream_state state, const char *error) {
    (void)old;
    struct cpw_sound *sound = data;
    if (!sound->closing) cpw_say_state(sound->on_state, sound->handler_context, state, error);
}

static const struct pw_stream_events stream_events = {
    PW_VERSION_STREAM_EVENTS,
    .state_changed = on_state_changed,
    .process = on_process,
};

static void on_core_error(void *data, uint32_t id, int seq, int res, const char *message) {
    (void)seq;
    struct cpw_sound *sound = data;
    if (!sound->closing) cpw_say_core_error(sound->on_state, sound->handler_context, id, res, message);
}

static const struct pw_core_events core_events = { PW_VERSION_CORE_EVENTS, .error = on_core_error };

// The properties that connect to `remote` (a socket's path), or to the user's PipeWire when NULL.
static struct pw_properties *remote_properties(const char *remote) {
    return remote ? pw_properties_new(PW_KEY_REMOTE_NAME, remote, NULL) : NULL;
}

cpw_sound *cpw_sound_open(const char *remote, const char *target, uint32_t node, int monitor,
                          cpw_sound_handler on_sound, cpw_state_handler on_state, void *context, char *error,
                          size_t error_size) {
    pw_init(NULL, NULL);
    struct cpw_sound *sound = calloc(1, sizeof *sound);
    if (sound == NULL) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    sound->on_sound = on_sound;
    sound->on_state = on_state;
    sound->handler_context = context;
    sound->loop = pw_thread_loop_new("podium-sound", NULL);
    sound->context = sound->loop ? pw_context_new(pw_thread_loop_get_loop(sound->loop), NULL, 0) : NULL;
    if (sound->context == NULL || pw_thread_loop_start(sound->loop) < 0) {
        snprintf(error, error_size, "cannot start PipeWire's loop: %s", strerror(errno));
        if (sound->context) pw_context_destroy(sound->context);
        if (sound->loop) pw_thread_loop_destroy(sound->loop);
        free(sound);
        return NULL;
    }
    pw_thread_loop_lock(sound->loop);
    sound->core = pw_context_connect(sound->context, remote_properties(remote), 0);
    struct pw_properties *properties = pw_properties_new(
        PW_KEY_MEDIA_TYPE, "Audio", PW_KEY_MEDIA_CATEGORY, "Capture", PW_KEY_MEDIA_ROLE, "Production",
        PW_KEY_NODE_LATENCY, "960/48000", PW_KEY_APP_NAME, "Podium", NULL);
    if (properties != NULL && monitor) pw_properties_set(properties, PW_KEY_STREAM_CAPTURE_SINK, "true");
    if (properties != NULL && target != NULL) pw_properties_set(properties, PW_KEY_TARGET_OBJECT, target);
    if (sound->core != NULL) {
        pw_core_add_listener(sound->core, &sound->core_listener, &core_events, sound);
        sound->stream = pw_stream_new(sound->core, "Podium sound", properties);
    } else if (properties != NULL) {
        pw_properties_free(properties);
    }
    if (sound->stream == NULL) {
        snprintf(error, error_size, "cannot connect to PipeWire: %s", strerror(errno));
        pw_thread_loop_unlock(sound->loop);
        cpw_sound_close(sound);
        return NULL;
    }
    pw_stream_add_listener(sound->stream, &sound->stream_listener, &stream_events, sound);
    uint8_t room[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(room, sizeof room);
    struct spa_audio_info_raw info = { .format = SPA_AUDIO_FORMAT_F32, .rate = SOUND_RATE,
                                       .channels = SOUND_CHANNELS,
                                       .position = { SPA_AUDIO_CHANNEL_FL, SPA_AUDIO_CHANNEL_FR } };
    const struct spa_pod *format = spa_format_audio_raw_build(&builder, SPA_PARAM_EnumFormat, &info);
    int connected = pw_stream_connect(sound->stream, PW_DIRECTION_INPUT, node,
                                      PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS, &format, 1);
    pw_thread_loop_unlock(sound->loop);
    if (connected < 0) {
        snprintf(error, error_size, "cannot record from PipeWire: %s", spa_strerror(connected));
        cpw_sound_close(sound);
        return NULL;
    }
    return sound;
}

void cpw_sound_close(cpw_sound *sound) {
    if (sound == NULL) return;
    cpw_shut(sound->loop, sound->context, sound->core, sound->stream, &sound->closing);
    free(sound);
}

int cpw_reachable(const char *remote) {
    pw_init(NULL, NULL);
    struct pw_main_loop *loop = pw_main_loop_new(NULL);
    if (loop == NULL) return 0;
    struct pw_context *context = pw_context_new(pw_main_loop_get_loop(loop), NULL, 0);
    struct pw_core *core = context ? pw_context_connect(context, remote_properties(remote), 0) : NULL;
    int reached = core != NULL;
    if (core) pw_core_disconnect(core);
    if (context) pw_context_destroy(context);
    pw_main_loop_destroy(loop);
    return reached;
}

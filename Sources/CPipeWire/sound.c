// Sound recorded from one PipeWire node, or played into the default output, with the graph's own
// timing (see cpipewire.h).
//
// Both ask for 32-bit float stereo at 48 kHz (PipeWire converts) and are processed on PipeWire's
// real-time thread within the graph's cycle, so the cycle's time is their data's (handed to
// another thread, a block was at times a cycle old by the time it was stamped). A recorded block
// is stamped with when it was heard, from `pw_stream_get_time_n`: the cycle's time on
// CLOCK_MONOTONIC, less the delay from the device to the stream (for a sink's monitor, a negative
// delay: the room hears it after the stream has it). These are what the graph itself runs on, not
// reports of a protocol layer above it, and they move only when the graph does. A block to play
// is filled for when it will be heard: what is written in one cycle is taken in the next, so one
// quantum on, plus the delay to the device and what the converter holds.
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
    cpw_play_handler on_play;
    // The graph's clock, as the stream's io area gives it: when the next cycle begins.
    struct spa_io_position *position;
    cpw_state_handler on_state;
    void *handler_context;
    int closing;
};

// When the cycle now running is at the device, in nanoseconds on CLOCK_MONOTONIC: `sign` -1 for
// what is recorded (it was heard that long before), 1 for what is played (it will be heard that
// long after, and after what the stream's converter still holds).
static int64_t cycle_at_device(struct pw_stream *stream, int sign) {
    struct pw_time time;
    if (pw_stream_get_time_n(stream, &time, sizeof time) == 0 && time.rate.denom > 0 && time.now > 0) {
        // The delay is counted in the graph's rate, what the stream holds in its own.
        int64_t delay = time.delay * (int64_t)SPA_NSEC_PER_SEC * time.rate.num / time.rate.denom;
        int64_t held = sign > 0 ? (int64_t)time.buffered * (int64_t)SPA_NSEC_PER_SEC / SOUND_RATE : 0;
        return time.now + sign * (delay + held);
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return SPA_TIMESPEC_TO_NSEC(&now);
}

static void on_process_play(struct cpw_sound *sound, struct pw_buffer *buffer) {
    struct spa_data *plane = &buffer->buffer->datas[0];
    uint32_t stride = sizeof(float) * SOUND_CHANNELS;
    uint32_t frames = plane->maxsize / stride;
    if (buffer->requested > 0) frames = SPA_MIN(frames, (uint32_t)buffer->requested);
    if (plane->data == NULL) frames = 0;
    if (frames > 0) {
        // What is written now is taken in the next cycle: this one's length on (not the frames
        // asked for, which are the next one's, and differ when the quantum changes).
        struct spa_io_position *position = sound->position;
        int64_t now = cycle_at_device(sound->stream, 1);
        int64_t wait = position != NULL && position->clock.next_nsec > position->clock.nsec
            ? (int64_t)(position->clock.next_nsec - position->clock.nsec)
            : (int64_t)frames * (int64_t)SPA_NSEC_PER_SEC / SOUND_RATE;
        sound->on_play(sound->handler_context, plane->data, frames, now + wait);
    }
    plane->chunk->offset = 0;
    plane->chunk->stride = stride;
    plane->chunk->size = frames * stride;
}

static void on_process(void *data) {
    struct cpw_sound *sound = data;
    struct pw_buffer *buffer = pw_stream_dequeue_buffer(sound->stream);
    if (buffer == NULL) return;
    if (sound->on_play != NULL) {
        on_process_play(sound, buffer);
        pw_stream_queue_buffer(sound->stream, buffer);
        return;
    }
    struct spa_data *plane = &buffer->buffer->datas[0];
    uint32_t offset = SPA_MIN(plane->chunk->offset, plane->maxsize);
    uint32_t size = SPA_MIN(plane->chunk->size, plane->maxsize - offset);
    uint32_t frames = size / (sizeof(float) * SOUND_CHANNELS);
    if (plane->data != NULL && frames > 0) {
        sound->on_sound(sound->handler_context, (const float *)SPA_PTROFF(plane->data, offset, void), frames,
                        cycle_at_device(sound->stream, -1));
    }
    pw_stream_queue_buffer(sound->stream, buffer);
}

static void on_state_changed(void *data, enum pw_stream_state old, enum pw_stream_state state, const char *error) {
    (void)old;
    struct cpw_sound *sound = data;
    if (!sound->closing) cpw_say_state(sound->on_state, sound->handler_context, state, error);
}

static void on_io_changed(void *data, uint32_t id, void *area, uint32_t size) {
    struct cpw_sound *sound = data;
    if (id == SPA_IO_Position) sound->position = size >= sizeof *sound->position ? area : NULL;
}

static const struct pw_stream_events stream_events = {
    PW_VERSION_STREAM_EVENTS,
    .state_changed = on_state_changed,
    .io_changed = on_io_changed,
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

// Opens a stream of the format both directions use: recording `node` (or `properties`' target)
// when `on_play` is NULL, else playing into the default output.
static cpw_sound *open_sound(const char *remote, struct pw_properties *properties, uint32_t node,
                             cpw_sound_handler on_sound, cpw_play_handler on_play, cpw_state_handler on_state,
                             void *context, char *error, size_t error_size) {
    pw_init(NULL, NULL);
    struct cpw_sound *sound = calloc(1, sizeof *sound);
    if (sound == NULL || properties == NULL) {
        snprintf(error, error_size, "out of memory");
        if (properties) pw_properties_free(properties);
        free(sound);
        return NULL;
    }
    sound->on_sound = on_sound;
    sound->on_play = on_play;
    sound->on_state = on_state;
    sound->handler_context = context;
    sound->loop = pw_thread_loop_new("podium-sound", NULL);
    sound->context = sound->loop ? pw_context_new(pw_thread_loop_get_loop(sound->loop), NULL, 0) : NULL;
    if (sound->context == NULL || pw_thread_loop_start(sound->loop) < 0) {
        snprintf(error, error_size, "cannot start PipeWire's loop: %s", strerror(errno));
        pw_properties_free(properties);
        if (sound->context) pw_context_destroy(sound->context);
        if (sound->loop) pw_thread_loop_destroy(sound->loop);
        free(sound);
        return NULL;
    }
    pw_thread_loop_lock(sound->loop);
    sound->core = pw_context_connect(sound->context, remote_properties(remote), 0);
    if (sound->core != NULL) {
        pw_core_add_listener(sound->core, &sound->core_listener, &core_events, sound);
        sound->stream = pw_stream_new(sound->core, "Podium sound", properties);
    } else {
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
    enum pw_direction direction = on_play ? PW_DIRECTION_OUTPUT : PW_DIRECTION_INPUT;
    int connected = pw_stream_connect(sound->stream, direction, node,
                                      PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS
                                      | PW_STREAM_FLAG_RT_PROCESS, &format, 1);
    pw_thread_loop_unlock(sound->loop);
    if (connected < 0) {
        snprintf(error, error_size, "cannot %s PipeWire: %s", on_play ? "play into" : "record from",
                 spa_strerror(connected));
        cpw_sound_close(sound);
        return NULL;
    }
    return sound;
}

cpw_sound *cpw_sound_open(const char *remote, const char *target, uint32_t node, int monitor,
                          cpw_sound_handler on_sound, cpw_state_handler on_state, void *context, char *error,
                          size_t error_size) {
    // PipeWire's usual quantum (21 ms): a recorder that asked for less would make the whole graph,
    // and every program on it, wake more often than the desktop runs by itself.
    struct pw_properties *properties = pw_properties_new(
        PW_KEY_MEDIA_TYPE, "Audio", PW_KEY_MEDIA_CATEGORY, "Capture", PW_KEY_MEDIA_ROLE, "Production",
        PW_KEY_NODE_LATENCY, "1024/48000", PW_KEY_APP_NAME, "Podium", NULL);
    if (properties != NULL && monitor) pw_properties_set(properties, PW_KEY_STREAM_CAPTURE_SINK, "true");
    // A source named is recorded or nothing is: when it goes (a microphone unplugged), the stream
    // ends rather than being moved to another, whose sound would be heard in its place.
    if (properties != NULL && target != NULL) {
        pw_properties_set(properties, PW_KEY_TARGET_OBJECT, target);
        pw_properties_set(properties, PW_KEY_NODE_DONT_RECONNECT, "true");
    }
    return open_sound(remote, properties, node, on_sound, NULL, on_state, context, error, error_size);
}

cpw_sound *cpw_sound_play(const char *remote, const char *name, cpw_play_handler on_play, cpw_state_handler on_state,
                          void *context, char *error, size_t error_size) {
    struct pw_properties *properties = pw_properties_new(
        PW_KEY_MEDIA_TYPE, "Audio", PW_KEY_MEDIA_CATEGORY, "Playback", PW_KEY_MEDIA_ROLE, "Production",
        PW_KEY_NODE_LATENCY, "480/48000", PW_KEY_APP_NAME, name, NULL);
    return open_sound(remote, properties, PW_ID_ANY, NULL, on_play, on_state, context, error, error_size);
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

// What the video and the sound streams share: how PipeWire's news of a stream and of the
// connection reach Podium's state handler. Private to this module.
#ifndef PODIUM_CPIPEWIRE_STREAMS_H
#define PODIUM_CPIPEWIRE_STREAMS_H

#include "cpipewire.h"

#include <errno.h>
#include <stdio.h>

#include <pipewire/pipewire.h>
#include <spa/utils/result.h>

// Hands a stream's new state on, as one of CPW_STATE_*.
static inline void cpw_say_state(cpw_state_handler on_state, void *context, enum pw_stream_state state,
                                 const char *error) {
    switch (state) {
    case PW_STREAM_STATE_STREAMING: on_state(context, CPW_STATE_STREAMING, NULL); break;
    case PW_STREAM_STATE_PAUSED: on_state(context, CPW_STATE_PAUSED, NULL); break;
    case PW_STREAM_STATE_CONNECTING: on_state(context, CPW_STATE_CONNECTING, NULL); break;
    case PW_STREAM_STATE_ERROR:
    case PW_STREAM_STATE_UNCONNECTED:
        on_state(context, CPW_STATE_ENDED, error ? error : "the stream was disconnected");
        break;
    }
}

// Hands on an error of the connection that ends the stream: the daemon gone (a broken pipe), or
// the node refused.
static inline void cpw_say_core_error(cpw_state_handler on_state, void *context, uint32_t id, int res,
                                      const char *message) {
    if (id != PW_ID_CORE && res != -EPIPE) return;
    char said[256];
    snprintf(said, sizeof said, "%s (%s)", message ? message : "PipeWire failed", spa_strerror(res));
    on_state(context, CPW_STATE_ENDED, said);
}

// Stops `stream` and the connection and thread under it; `*closing` is set first, under the
// loop's lock, so that no handler speaks of the stream's own end.
static inline void cpw_shut(struct pw_thread_loop *loop, struct pw_context *context, struct pw_core *core,
                            struct pw_stream *stream, int *closing) {
    pw_thread_loop_lock(loop);
    *closing = 1;
    if (stream) {
        pw_stream_disconnect(stream);
        pw_stream_destroy(stream);
    }
    if (core) pw_core_disconnect(core);
    pw_thread_loop_unlock(loop);
    pw_thread_loop_stop(loop);
    pw_context_destroy(context);
    pw_thread_loop_destroy(loop);
}

#endif

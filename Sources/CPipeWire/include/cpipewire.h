// A video stream read from one PipeWire node, on PipeWire's own thread: what Podium needs of
// libpipewire, whose format and buffer parameters are built with C macros Swift cannot call.
#ifndef PODIUM_CPIPEWIRE_H
#define PODIUM_CPIPEWIRE_H

#include <stddef.h>
#include <stdint.h>

// The pixel layouts Podium takes: four bytes a pixel, blue first (as X11 and wl_shm give them),
// YUYV 4:2:2, two bytes a pixel, or each picture a JPEG (as webcams give them: most send their
// larger sizes only as JPEG).
enum { CPW_FORMAT_BGRX = 1, CPW_FORMAT_BGRA = 2, CPW_FORMAT_YUY2 = 3, CPW_FORMAT_MJPG = 4 };

// What the stream says of itself, as it goes.
enum {
    CPW_STATE_CONNECTING = 0, // waiting for the node and the session manager to link it
    CPW_STATE_STREAMING = 1,  // frames come
    CPW_STATE_PAUSED = 2,     // the producer stopped sending (it may be gone)
    CPW_STATE_ENDED = 3,      // the stream or PipeWire itself failed or went away: `error` says why
};

// A rectangle of a frame that changed since the one before.
typedef struct {
    int32_t x, y;
    uint32_t width, height;
} cpw_region;

// A frame: `pixels` are valid only during the call (the buffer goes back to PipeWire after it).
// `regions` is NULL when the producer says nothing of what changed (all of it may have). For
// CPW_FORMAT_MJPG, `stride` is the JPEG's length in bytes.
typedef void (*cpw_frame_handler)(void *context, const uint8_t *pixels, uint32_t width, uint32_t height,
                                  uint32_t stride, uint32_t format, const cpw_region *regions,
                                  uint32_t region_count);
typedef void (*cpw_state_handler)(void *context, int state, const char *error);

// The largest pointer image taken from a stream's cursor metadata, in pixels a side.
enum { CPW_CURSOR_MAX = 256 };

// Where the producer says the pointer is (its cursor metadata), in the frame's pixels: `visible`
// 0 when it is hidden or outside. `image` is the pointer's picture when it changed (NULL when
// not given again): premultiplied BGRA, `width` × `height` packed, its hot spot at
// (`hot_x`, `hot_y`); valid only during the call.
typedef void (*cpw_pointer_handler)(void *context, int visible, int32_t x, int32_t y, const uint32_t *image,
                                    uint32_t width, uint32_t height, int32_t hot_x, int32_t hot_y);

typedef struct cpw_capture cpw_capture;

// Connects to PipeWire (through `fd`, as the ScreenCast portal hands it out, or the user's
// daemon when `fd` is -1; PipeWire owns `fd` from then) and reads node `node` as video: pictures of
// `width` × `height` where the node offers several sizes (a virtual monitor takes its size from
// the one asked), or of the node's choice when they are 0. The handlers are called on PipeWire's
// thread (`on_pointer` only when the producer sends cursor metadata). Returns NULL with `error`
// filled when it cannot.
cpw_capture *cpw_capture_open(int fd, uint32_t node, uint32_t width, uint32_t height, cpw_frame_handler on_frame,
                              cpw_pointer_handler on_pointer, cpw_state_handler on_state, void *context, char *error,
                              size_t error_size);

// Stops the stream and PipeWire's thread; no handler is called after it returns.
void cpw_capture_close(cpw_capture *capture);

// One node as the registry describes it, with the application it belongs to (a stream's); the
// strings are valid only during the call (any may be NULL).
typedef void (*cpw_node_handler)(void *context, uint32_t id, const char *name, const char *description,
                                 const char *nick, const char *application);

// Calls `on_node` for every node of `media_class` (`Video/Source`: cameras and shared screens;
// `Audio/Sink`, `Audio/Source`, `Stream/Output/Audio`: applications playing) the PipeWire at
// `remote` (a socket's path; the user's when NULL), or reached through `fd` when it is not -1 (a
// portal's connection, which PipeWire owns from then), has now, on the caller's thread. Returns 0,
// or -1 with `error` filled when PipeWire cannot be reached or does not answer within 5 s.
int cpw_list_nodes(const char *remote, int fd, const char *media_class, cpw_node_handler on_node, void *context,
                   char *error, size_t error_size);

// Sound recorded from one PipeWire node (see sound.c).
typedef struct cpw_sound cpw_sound;

// A block of sound: `frames` frames of interleaved 32-bit float stereo at 48 kHz, valid only
// during the call; its first frame heard at `heard` (nanoseconds on CLOCK_MONOTONIC), from the
// graph's own time and its delay to or from the device.
typedef void (*cpw_sound_handler)(void *context, const float *samples, uint32_t frames, int64_t heard);

// Records `target` (a node's name; NULL for the default) or node `node` (an application's stream;
// PW_ID_ANY for none): with `monitor`, the sound a sink plays (its monitor; the default sink's
// when neither is given), otherwise a source's (a microphone) or a stream's. Connects to `remote`
// (a socket's path), or the user's PipeWire when NULL. The handlers are called on PipeWire's
// thread. Returns NULL with `error` filled when it cannot.
cpw_sound *cpw_sound_open(const char *remote, const char *target, uint32_t node, int monitor,
                          cpw_sound_handler on_sound, cpw_state_handler on_state, void *context, char *error,
                          size_t error_size);

// A block to play: `frames` frames of interleaved 32-bit float stereo at 48 kHz to write into
// `samples`, whose first frame will be heard at `heard` (nanoseconds on CLOCK_MONOTONIC).
typedef void (*cpw_play_handler)(void *context, float *samples, uint32_t frames, int64_t heard);

// Plays what `on_play` writes into the default output, as application `name`; otherwise as
// `cpw_sound_open`.
cpw_sound *cpw_sound_play(const char *remote, const char *name, cpw_play_handler on_play, cpw_state_handler on_state,
                          void *context, char *error, size_t error_size);

// Stops recording or playing and PipeWire's thread; no handler is called after it returns.
void cpw_sound_close(cpw_sound *sound);

// Whether a PipeWire daemon takes connections at `remote` (a socket's path), or at the user's
// socket (`$PIPEWIRE_REMOTE`, or `$XDG_RUNTIME_DIR/pipewire-0`) when NULL.
int cpw_reachable(const char *remote);

#endif

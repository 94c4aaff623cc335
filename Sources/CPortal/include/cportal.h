// The desktop's ScreenCast and Camera portals (org.freedesktop.portal.*) over the session bus, with
// sd-bus: what Podium needs of it, in C because sd-bus reads and writes messages with variadic
// calls Swift cannot make.
#ifndef PODIUM_CPORTAL_H
#define PODIUM_CPORTAL_H

#include <stddef.h>
#include <stdint.h>

// How an exchange ended.
enum {
    CPORTAL_OK = 0,
    CPORTAL_CANCELLED = 1,   // the user closed the desktop's dialog without choosing
    CPORTAL_FAILED = 2,      // the portal or the desktop refused or failed: `error` says how
    CPORTAL_UNAVAILABLE = 3, // no session bus, no portal, or a portal without ScreenCast
    CPORTAL_INTERRUPTED = 4, // `interrupted` said to stop waiting
};

// What may be shared (the portal's source types).
enum { CPORTAL_MONITOR = 1, CPORTAL_WINDOW = 2, CPORTAL_VIRTUAL = 4 };

// The stream the desktop opened for the choice, and what to keep for next time.
typedef struct {
    uint32_t node;        // the PipeWire node to read
    int32_t width, height; // its size, when the portal says (0 otherwise)
    int32_t x, y;         // its place in the desktop's layout, when the portal says (0 otherwise)
    uint32_t source_type; // CPORTAL_MONITOR, CPORTAL_WINDOW or CPORTAL_VIRTUAL (0 when not said)
    int fd;               // a connection to PipeWire for the stream, owned by the caller
    int cursor_metadata;  // nonzero when the pointer comes apart, as the stream's cursor metadata
    char restore_token[512]; // hand it back to a later run to skip the dialog ("" when none)
} cportal_stream;

typedef struct cportal cportal;

// Asked now and then while waiting on the desktop (the user may take their time in its dialog):
// nonzero ends the wait with CPORTAL_INTERRUPTED.
typedef int (*cportal_interrupted)(void *context);

// Opens a session: CreateSession, SelectSources (offering `types`, the cursor as metadata where
// the desktop offers it, else drawn into the picture or not as `draws_cursor` says, the choice
// kept until revoked, and `restore_token` when not NULL), Start and OpenPipeWireRemote. On CPORTAL_OK `*session` is set and `stream` filled; otherwise `error` says why.
int cportal_open(uint32_t types, int draws_cursor, const char *restore_token, cportal_interrupted interrupted,
                 void *context, cportal **session, cportal_stream *stream, char *error, size_t error_size);

// A new connection to PipeWire for the session's stream (a descriptor the caller owns), or -1
// with `error` set.
int cportal_connect(cportal *session, char *error, size_t error_size);

// Waits up to `timeout_us` for the portal to say something; returns nonzero once the desktop has
// closed the session (the user stopped sharing) or the bus went away.
int cportal_wait(cportal *session, uint64_t timeout_us);

// Closes the session (the desktop stops the stream) and the bus connection.
void cportal_close(cportal *session);

// The Camera portal (org.freedesktop.portal.Camera), a sandboxed program's way to the cameras:
// asks for them (AccessCamera; the desktop's dialog the first time, as long as the user takes).
// CPORTAL_UNAVAILABLE when there is no portal, no Camera interface, or it says there is no camera.
int cportal_camera_access(cportal_interrupted interrupted, void *context, char *error, size_t error_size);

// A new connection to PipeWire that shows the cameras (the portal's OpenPipeWireRemote), a
// descriptor the caller owns, or -1 with `error` set.
int cportal_camera_connect(char *error, size_t error_size);

// The GlobalShortcuts portal (org.freedesktop.portal.GlobalShortcuts): keys the desktop holds for
// a program whatever has the focus. Opens a session and binds `count` shortcuts (each an id, a
// description and a preferred trigger as the XDG shortcuts spec writes it: "CTRL+ALT+b"); the
// desktop may ask the user, as long as they take. `on_bound` is called for each shortcut the
// desktop bound, with the trigger it says (which may differ from the one preferred). On
// CPORTAL_OK `*session` is set; otherwise `error` says why (CPORTAL_UNAVAILABLE: no portal, or
// one without GlobalShortcuts).
typedef void (*cportal_shortcut_handler)(void *context, const char *id, const char *trigger);
int cportal_shortcuts_open(uint32_t count, const char *const *ids, const char *const *descriptions,
                           const char *const *triggers, cportal_interrupted interrupted, void *context,
                           cportal_shortcut_handler on_bound, cportal **session, char *error, size_t error_size);

// Waits up to `timeout_us` for the portal, calling `on_activated` (with an empty trigger) for each
// shortcut pressed since; returns nonzero once the desktop closed the session or the bus went.
int cportal_shortcuts_wait(cportal *session, uint64_t timeout_us, cportal_shortcut_handler on_activated,
                           void *context);

// GNOME's own screen casting (a virtual monitor), beside the portals.
#include "cmutter.h"

#endif

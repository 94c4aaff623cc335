// GNOME's own screen casting and remote desktop (org.gnome.Mutter.ScreenCast and
// org.gnome.Mutter.RemoteDesktop on the session bus), with sd-bus: a virtual monitor that exists
// while the session lasts, read through PipeWire, and the pointer and keys played on it.
#ifndef PODIUM_CMUTTER_H
#define PODIUM_CMUTTER_H

#include <stddef.h>
#include <stdint.h>

typedef struct cmutter cmutter;

// Opens a ScreenCast session (inside a RemoteDesktop session when `with_input`, so that input can
// be played on its stream), records a virtual monitor (the pointer drawn in when `draws_cursor`,
// else sent as metadata), starts it and waits for its PipeWire stream. The monitor itself comes
// when a consumer connects to the node (`*node`, on the user's own PipeWire) and chooses its size.
// CPORTAL_OK (cportal.h) with `*session` and `*node` set; CPORTAL_UNAVAILABLE when there is no session bus or no
// Mutter on it; CPORTAL_FAILED with `error` set otherwise.
int cmutter_open(int with_input, int draws_cursor, cmutter **session, uint32_t *node, char *error,
                 size_t error_size);

// One monitor of the desktop as Mutter's DisplayConfig says: its connector, its current mode, and
// the logical monitor it is in (its place and size in the layout's pixels: its mode's over its
// scale where the layout is logical, as they are where it is physical).
typedef struct {
    char connector[64];
    char mode[64];
    int32_t x, y, width, height;
    double scale;
    uint32_t transform;
    int primary;
} cmutter_monitor;

// The desktop's monitors now (up to `capacity` of them), the configuration's serial that a layout
// applied must name, and whether the layout is logical (scaled monitors take less of it) rather
// than physical; the count, or -1 with `error` set.
int cmutter_monitors(cmutter *session, cmutter_monitor *monitors, int capacity, uint32_t *serial, int *logical,
                     char *error, size_t error_size);

// Lays the monitors out as given (each its own logical monitor; places as in `monitors`, the top
// left one at 0,0), for as long as the session lasts (a temporary configuration); 0, or -1 with
// `error` set.
int cmutter_arrange(cmutter *session, uint32_t serial, const cmutter_monitor *monitors, int count, char *error,
                    size_t error_size);

// Whether the session ended, from what the bus said since last asked (it does not wait): 0 while it
// goes on, 1 once Mutter closed it, 2 once Mutter left the bus.
int cmutter_ended(cmutter *session);

// Input on the virtual monitor alone (sessions opened `with_input`); each returns 0 or a negative
// errno. The pointer's place is in the stream's pixels; buttons are evdev codes (BTN_LEFT 0x110);
// keys are X keysyms.
int cmutter_pointer_to(cmutter *session, double x, double y);
int cmutter_button(cmutter *session, int32_t button, int down);
int cmutter_key(cmutter *session, uint32_t keysym, int down);

// Whether Mutter's screen casting answers on the session bus: nonzero when it does.
int cmutter_present(void);

// Stops the session: Mutter takes the monitor away.
void cmutter_stop(cmutter *session);

// Stops the session (Mutter takes the monitor away) and closes the bus connection.
void cmutter_close(cmutter *session);

#endif

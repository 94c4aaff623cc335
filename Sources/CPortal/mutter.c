// Mutter's ScreenCast and RemoteDesktop interfaces, as mutter's own D-Bus descriptions document
// them: plain method calls that answer at once, and one signal (PipeWireStreamAdded) to wait for.
// Mutter ends a session whose caller leaves the bus, so a run that is killed leaves nothing.
#define _GNU_SOURCE
#include "cmutter.h"
#include "cportal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <systemd/sd-bus.h>

#define SCREENCAST "org.gnome.Mutter.ScreenCast"
#define SCREENCAST_PATH "/org/gnome/Mutter/ScreenCast"
#define REMOTE "org.gnome.Mutter.RemoteDesktop"
#define REMOTE_PATH "/org/gnome/Mutter/RemoteDesktop"
// Mutter's cursor modes.
enum { CURSOR_EMBEDDED = 1, CURSOR_METADATA = 2 };
// Mutter adds the stream's node as soon as it starts; a few seconds is plenty on a loaded machine.
enum { STREAM_TIMEOUT_S = 10 };

struct cmutter {
    sd_bus *bus;
    sd_bus_slot *added_slot, *closed_slot, *remote_closed_slot, *owner_slot;
    char cast[256], remote[256], stream[256];
    uint32_t node;
    // `closed` is 1 once the session was closed, 2 once Mutter left the bus; `stopped` once we stopped it.
    int added, closed, stopped;
};

static void say(char *error, size_t size, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, size, format, arguments);
    va_end(arguments);
}

static int on_added(sd_bus_message *message, void *userdata, sd_bus_error *unused) {
    (void)unused;
    cmutter *session = userdata;
    if (sd_bus_message_read(message, "u", &session->node) >= 0) session->added = 1;
    return 0;
}

static int on_closed(sd_bus_message *message, void *userdata, sd_bus_error *unused) {
    (void)message, (void)unused;
    ((cmutter *)userdata)->closed = 1;
    return 0;
}

static int on_owner_changed(sd_bus_message *message, void *userdata, sd_bus_error *unused) {
    (void)unused;
    const char *name = NULL, *before = NULL, *after = NULL;
    if (sd_bus_message_read(message, "sss", &name, &before, &after) >= 0 && strcmp(name, SCREENCAST) == 0
        && after[0] == 0) {
        ((cmutter *)userdata)->closed = 2;
    }
    return 0;
}

static double now_s(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

// Says what `failure` was of `what`; CPORTAL_FAILED.
static int refused(sd_bus_error *failure, int code, const char *what, char *error, size_t size) {
    say(error, size, "GNOME (Mutter) refused %s: %s", what,
        failure->message ? failure->message : failure->name ? failure->name : strerror(-code));
    sd_bus_error_free(failure);
    return CPORTAL_FAILED;
}

// Reads an object path answer into `path`; 1 when there is one.
static int read_path(sd_bus_message *reply, char *path, size_t size) {
    const char *read = NULL;
    if (sd_bus_message_read(reply, "o", &read) < 0 || !read) return 0;
    snprintf(path, size, "%s", read);
    return 1;
}

// CreateSession on RemoteDesktop (when `with_input`) and on ScreenCast, joined, with their Closed
// signals watched.
static int create_sessions(cmutter *session, int with_input, char *error, size_t size) {
    sd_bus_error failure = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    const char *id = NULL;
    char *owned_id = NULL;
    int code;
    if (with_input) {
        code = sd_bus_call_method(session->bus, REMOTE, REMOTE_PATH, REMOTE, "CreateSession", &failure, &reply, "");
        if (code < 0) return refused(&failure, code, "a remote desktop session (for --allow-input)", error, size);
        int named = read_path(reply, session->remote, sizeof session->remote);
        reply = sd_bus_message_unref(reply);
        if (!named) return refused(&failure, -EBADMSG, "a remote desktop session", error, size);
        sd_bus_match_signal(session->bus, &session->remote_closed_slot, REMOTE, session->remote,
                            REMOTE ".Session", "Closed", on_closed, session);
        code = sd_bus_get_property_string(session->bus, REMOTE, session->remote, REMOTE ".Session", "SessionId",
                                          &failure, &owned_id);
        if (code < 0) return refused(&failure, code, "to name its remote desktop session", error, size);
        id = owned_id;
    }
    code = id ? sd_bus_call_method(session->bus, SCREENCAST, SCREENCAST_PATH, SCREENCAST, "CreateSession", &failure,
                                   &reply, "a{sv}", 1, "remote-desktop-session-id", "s", id)
              : sd_bus_call_method(session->bus, SCREENCAST, SCREENCAST_PATH, SCREENCAST, "CreateSession", &failure,
                                   &reply, "a{sv}", 0);
    free(owned_id);
    if (code < 0) return refused(&failure, code, "a screen cast session", error, size);
    int named = read_path(reply, session->cast, sizeof session->cast);
    sd_bus_message_unref(reply);
    if (!named) return refused(&failure, -EBADMSG, "a screen cast session", error, size);
    sd_bus_match_signal(session->bus, &session->closed_slot, SCREENCAST, session->cast, SCREENCAST ".Session",
                        "Closed", on_closed, session);
    return CPORTAL_OK;
}

int cmutter_open(int with_input, int draws_cursor, cmutter **opened, uint32_t *node, char *error,
                 size_t error_size) {
    cmutter *session = calloc(1, sizeof *session);
    if (!session) {
        say(error, error_size, "out of memory");
        return CPORTAL_FAILED;
    }
    int code = sd_bus_open_user(&session->bus);
    if (code < 0) {
        const char *address = getenv("DBUS_SESSION_BUS_ADDRESS");
        say(error, error_size, "no session bus at %s (%s): GNOME is reached through it",
            address && *address ? address : "$XDG_RUNTIME_DIR/bus", strerror(-code));
        cmutter_close(session);
        return CPORTAL_UNAVAILABLE;
    }
    sd_bus_error failure = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    uint32_t version = 0;
    code = sd_bus_get_property_trivial(session->bus, SCREENCAST, SCREENCAST_PATH, SCREENCAST, "Version", &failure,
                                       'i', &version);
    if (code < 0) {
        say(error, error_size, "no GNOME (Mutter) screen casting on the session bus (%s: %s)", SCREENCAST,
            failure.message ? failure.message : failure.name ? failure.name : strerror(-code));
        sd_bus_error_free(&failure);
        cmutter_close(session);
        return CPORTAL_UNAVAILABLE;
    }
    sd_bus_match_signal(session->bus, &session->owner_slot, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                        "org.freedesktop.DBus", "NameOwnerChanged", on_owner_changed, session);
    int result = create_sessions(session, with_input, error, error_size);
    if (result != CPORTAL_OK) goto done;

    code = sd_bus_call_method(session->bus, SCREENCAST, session->cast, SCREENCAST ".Session", "RecordVirtual",
                              &failure, &reply, "a{sv}", 1, "cursor-mode", "u",
                              (uint32_t)(draws_cursor ? CURSOR_EMBEDDED : CURSOR_METADATA));
    if (code < 0 || !read_path(reply, session->stream, sizeof session->stream)) {
        result = code < 0 ? refused(&failure, code, "a virtual monitor (RecordVirtual, GNOME 40 and later)", error,
                                    error_size)
                          : refused(&failure, -EBADMSG, "a virtual monitor", error, error_size);
        goto done;
    }
    reply = sd_bus_message_unref(reply);
    sd_bus_match_signal(session->bus, &session->added_slot, SCREENCAST, session->stream, SCREENCAST ".Stream",
                        "PipeWireStreamAdded", on_added, session);
    // A remote desktop session starts its screen cast session with it.
    code = session->remote[0]
        ? sd_bus_call_method(session->bus, REMOTE, session->remote, REMOTE ".Session", "Start", &failure, NULL, "")
        : sd_bus_call_method(session->bus, SCREENCAST, session->cast, SCREENCAST ".Session", "Start", &failure, NULL,
                             "");
    if (code < 0) {
        result = refused(&failure, code, "to start the screen cast", error, error_size);
        goto done;
    }
    double deadline = now_s() + STREAM_TIMEOUT_S;
    while (!session->added && !session->closed && now_s() < deadline) {
        int processed = sd_bus_process(session->bus, NULL);
        if (processed < 0) break;
        if (processed == 0) sd_bus_wait(session->bus, 200000);
    }
    if (!session->added) {
        if (session->closed) {
            say(error, error_size, "GNOME (Mutter) closed the screen cast as it started");
        } else {
            say(error, error_size, "GNOME (Mutter) made no PipeWire stream within %d s", STREAM_TIMEOUT_S);
        }
        result = CPORTAL_FAILED;
        goto done;
    }
    *node = session->node;

done:
    sd_bus_message_unref(reply);
    sd_bus_error_free(&failure);
    if (result == CPORTAL_OK) {
        *opened = session;
    } else {
        cmutter_close(session);
    }
    return result;
}

#define DISPLAY_CONFIG "org.gnome.Mutter.DisplayConfig"
#define DISPLAY_CONFIG_PATH "/org/gnome/Mutter/DisplayConfig"

// In a mode's a{sv}: whether it is the current one.
static int read_is_current(sd_bus_message *reply, int *current) {
    if (sd_bus_message_enter_container(reply, 'a', "{sv}") < 0) return -1;
    while (sd_bus_message_enter_container(reply, 'e', "sv") > 0) {
        const char *name = NULL;
        int read = sd_bus_message_read(reply, "s", &name);
        if (read >= 0 && strcmp(name, "is-current") == 0) {
            read = sd_bus_message_read(reply, "v", "b", current);
        } else if (read >= 0) {
            read = sd_bus_message_skip(reply, "v");
        }
        if (read < 0 || sd_bus_message_exit_container(reply) < 0) return -1;
    }
    return sd_bus_message_exit_container(reply);
}

// GetCurrentState's monitors, a((ssss)a(siiddada{sv})a{sv}): each connector and its current mode.
static int read_monitors(sd_bus_message *reply, cmutter_monitor *monitors, int capacity) {
    int count = 0;
    if (sd_bus_message_enter_container(reply, 'a', "((ssss)a(siiddada{sv})a{sv})") < 0) return -1;
    while (sd_bus_message_enter_container(reply, 'r', "(ssss)a(siiddada{sv})a{sv}") > 0) {
        const char *connector = NULL;
        cmutter_monitor *monitor = count < capacity ? &monitors[count] : NULL;
        if (sd_bus_message_read(reply, "(ssss)", &connector, NULL, NULL, NULL) < 0
            || sd_bus_message_enter_container(reply, 'a', "(siiddada{sv})") < 0) {
            return -1;
        }
        if (monitor) {
            memset(monitor, 0, sizeof *monitor);
            snprintf(monitor->connector, sizeof monitor->connector, "%s", connector);
            monitor->scale = 1;
        }
        while (sd_bus_message_enter_container(reply, 'r', "siiddada{sv}") > 0) {
            const char *id = NULL;
            int32_t width = 0, height = 0, current = 0;
            double rate = 0, preferred_scale = 0;
            if (sd_bus_message_read(reply, "siidd", &id, &width, &height, &rate, &preferred_scale) < 0
                || sd_bus_message_skip(reply, "ad") < 0 || read_is_current(reply, &current) < 0
                || sd_bus_message_exit_container(reply) < 0) {
                return -1;
            }
            if (monitor && current) {
                snprintf(monitor->mode, sizeof monitor->mode, "%s", id);
                monitor->width = width;
                monitor->height = height;
            }
        }
        if (sd_bus_message_exit_container(reply) < 0 || sd_bus_message_skip(reply, "a{sv}") < 0
            || sd_bus_message_exit_container(reply) < 0) {
            return -1;
        }
        if (monitor) count++;
    }
    return sd_bus_message_exit_container(reply) < 0 ? -1 : count;
}

// GetCurrentState's logical monitors, a(iiduba(ssss)a{sv}): each connector's place and scale.
static int read_places(sd_bus_message *reply, cmutter_monitor *monitors, int count, int logical) {
    if (sd_bus_message_enter_container(reply, 'a', "(iiduba(ssss)a{sv})") < 0) return -1;
    while (sd_bus_message_enter_container(reply, 'r', "iiduba(ssss)a{sv}") > 0) {
        int32_t x = 0, y = 0, primary = 0;
        double scale = 1;
        uint32_t transform = 0;
        if (sd_bus_message_read(reply, "iidub", &x, &y, &scale, &transform, &primary) < 0
            || sd_bus_message_enter_container(reply, 'a', "(ssss)") < 0) {
            return -1;
        }
        const char *connector = NULL;
        while (sd_bus_message_read(reply, "(ssss)", &connector, NULL, NULL, NULL) > 0) {
            for (int index = 0; index < count; index++) {
                cmutter_monitor *monitor = &monitors[index];
                if (strcmp(monitor->connector, connector) != 0) continue;
                monitor->x = x;
                monitor->y = y;
                monitor->scale = scale > 0 ? scale : 1;
                monitor->transform = transform;
                monitor->primary = primary;
                // In a logical layout, a scaled monitor covers less of it.
                if (logical) {
                    monitor->width = (int32_t)(monitor->width / monitor->scale);
                    monitor->height = (int32_t)(monitor->height / monitor->scale);
                }
            }
        }
        if (sd_bus_message_exit_container(reply) < 0 || sd_bus_message_skip(reply, "a{sv}") < 0
            || sd_bus_message_exit_container(reply) < 0) {
            return -1;
        }
    }
    return sd_bus_message_exit_container(reply);
}

// GetCurrentState's properties: whether "layout-mode" is logical (1) rather than physical (2, and
// Mutter's default).
static int read_logical(sd_bus_message *reply) {
    uint32_t mode = 2;
    if (sd_bus_message_enter_container(reply, 'a', "{sv}") < 0) return 0;
    while (sd_bus_message_enter_container(reply, 'e', "sv") > 0) {
        const char *name = NULL;
        int read = sd_bus_message_read(reply, "s", &name);
        if (read >= 0 && strcmp(name, "layout-mode") == 0) {
            read = sd_bus_message_read(reply, "v", "u", &mode);
        } else if (read >= 0) {
            read = sd_bus_message_skip(reply, "v");
        }
        if (read < 0 || sd_bus_message_exit_container(reply) < 0) break;
    }
    return mode == 1;
}

int cmutter_monitors(cmutter *session, cmutter_monitor *monitors, int capacity, uint32_t *serial, int *logical,
                     char *error, size_t error_size) {
    sd_bus_error failure = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    int code = sd_bus_call_method(session->bus, DISPLAY_CONFIG, DISPLAY_CONFIG_PATH, DISPLAY_CONFIG,
                                  "GetCurrentState", &failure, &reply, "");
    if (code < 0) {
        refused(&failure, code, "to say how its monitors are laid out", error, error_size);
        return -1;
    }
    // The layout's mode comes last: read it first, then go back for the rest.
    int count = sd_bus_message_read(reply, "u", serial) < 0
        || sd_bus_message_skip(reply, "a((ssss)a(siiddada{sv})a{sv})a(iiduba(ssss)a{sv})") < 0 ? -1 : 0;
    *logical = count == 0 && read_logical(reply);
    if (count == 0 && (sd_bus_message_rewind(reply, 1) < 0 || sd_bus_message_skip(reply, "u") < 0)) count = -1;
    if (count == 0) count = read_monitors(reply, monitors, capacity);
    if (count >= 0 && read_places(reply, monitors, count, *logical) < 0) count = -1;
    if (count < 0) say(error, error_size, "GNOME (Mutter) described its monitors in a way Podium cannot read");
    sd_bus_message_unref(reply);
    return count;
}

int cmutter_arrange(cmutter *session, uint32_t serial, const cmutter_monitor *monitors, int count, char *error,
                    size_t error_size) {
    sd_bus_message *call = NULL, *reply = NULL;
    sd_bus_error failure = SD_BUS_ERROR_NULL;
    // Method 1: temporary, kept until the monitors change again (no dialog asks to keep it).
    int ok = sd_bus_message_new_method_call(session->bus, &call, DISPLAY_CONFIG, DISPLAY_CONFIG_PATH, DISPLAY_CONFIG,
                                            "ApplyMonitorsConfig") >= 0
             && sd_bus_message_append(call, "uu", serial, (uint32_t)1) >= 0
             && sd_bus_message_open_container(call, 'a', "(iiduba(ssa{sv}))") >= 0;
    for (int index = 0; ok && index < count; index++) {
        const cmutter_monitor *monitor = &monitors[index];
        ok = sd_bus_message_append(call, "(iiduba(ssa{sv}))", monitor->x, monitor->y, monitor->scale,
                                   monitor->transform, monitor->primary, 1, monitor->connector, monitor->mode, 0) >= 0;
    }
    ok = ok && sd_bus_message_close_container(call) >= 0 && sd_bus_message_append(call, "a{sv}", 0) >= 0;
    int code = ok ? sd_bus_call(session->bus, call, 0, &failure, &reply) : -ENOMEM;
    int result = code < 0 ? -1 : 0;
    if (code < 0) refused(&failure, code, "the monitors' new layout", error, error_size);
    sd_bus_message_unref(call);
    sd_bus_message_unref(reply);
    return result;
}

int cmutter_ended(cmutter *session) {
    int processed;
    while (!session->closed && (processed = sd_bus_process(session->bus, NULL)) != 0) {
        if (processed < 0) session->closed = 2;
    }
    return session->closed;
}

int cmutter_pointer_to(cmutter *session, double x, double y) {
    if (!session->remote[0]) return -ENOTSUP;
    return sd_bus_call_method(session->bus, REMOTE, session->remote, REMOTE ".Session", "NotifyPointerMotionAbsolute",
                              NULL, NULL, "sdd", session->stream, x, y);
}

int cmutter_button(cmutter *session, int32_t button, int down) {
    if (!session->remote[0]) return -ENOTSUP;
    return sd_bus_call_method(session->bus, REMOTE, session->remote, REMOTE ".Session", "NotifyPointerButton", NULL,
                              NULL, "ib", button, down != 0);
}

int cmutter_key(cmutter *session, uint32_t keysym, int down) {
    if (!session->remote[0]) return -ENOTSUP;
    return sd_bus_call_method(session->bus, REMOTE, session->remote, REMOTE ".Session", "NotifyKeyboardKeysym", NULL,
                              NULL, "ub", keysym, down != 0);
}

int cmutter_present(void) {
    sd_bus *bus = NULL;
    int present = sd_bus_open_user(&bus) >= 0 && sd_bus_get_name_creds(bus, SCREENCAST, 0, NULL) >= 0;
    sd_bus_flush_close_unref(bus);
    return present;
}

void cmutter_stop(cmutter *session) {
    if (!session->bus || session->closed || session->stopped) return;
    // Stopping the remote desktop session stops its screen cast too.
    if (session->remote[0]) {
        sd_bus_call_method(session->bus, REMOTE, session->remote, REMOTE ".Session", "Stop", NULL, NULL, "");
    } else if (session->cast[0]) {
        sd_bus_call_method(session->bus, SCREENCAST, session->cast, SCREENCAST ".Session", "Stop", NULL, NULL, "");
    }
    session->stopped = 1;
}

void cmutter_close(cmutter *session) {
    if (!session) return;
    cmutter_stop(session);
    sd_bus_slot_unref(session->added_slot);
    sd_bus_slot_unref(session->closed_slot);
    sd_bus_slot_unref(session->remote_closed_slot);
    sd_bus_slot_unref(session->owner_slot);
    sd_bus_flush_close_unref(session->bus);
    free(session);
}

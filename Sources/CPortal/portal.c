// The ScreenCast and Camera portals' exchanges, as xdg-desktop-portal documents them: every request returns a
// Request object at once and answers later with its Response signal, so each step subscribes to
// the Response first (on the path the portal will use), calls, then waits for the answer.
#define _GNU_SOURCE
#include "cportal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

#define PORTAL "org.freedesktop.portal.Desktop"
#define DESKTOP "/org/freedesktop/portal/desktop"
#define SCREENCAST "org.freedesktop.portal.ScreenCast"
#define CAMERA "org.freedesktop.portal.Camera"
#define SHORTCUTS "org.freedesktop.portal.GlobalShortcuts"
#define REQUEST "org.freedesktop.portal.Request"
#define SESSION "org.freedesktop.portal.Session"

// The portal's cursor modes.
enum { CURSOR_HIDDEN = 1, CURSOR_EMBEDDED = 2, CURSOR_METADATA = 4 };
// Keep the choice until the user revokes it (ScreenCast version 4 and later).
enum { PERSIST_UNTIL_REVOKED = 2 };
// The steps before the dialog answer at once; a portal that does not is broken or stuck.
enum { STEP_TIMEOUT_S = 30 };

struct cportal {
    sd_bus *bus;
    sd_bus_slot *closed_slot;
    char session[256];
    // Set by the Closed signal, or when the bus goes.
    int closed;
    // The bus's unique name as request paths spell it (":1.42" → "1_42").
    char sender[128];
    unsigned requests;
    // The GlobalShortcuts session's Activated signal, and where it is handed while waiting.
    sd_bus_slot *activated_slot;
    cportal_shortcut_handler on_activated;
    void *activated_context;
    // The shortcuts BindShortcuts is asked for, while it is written.
    uint32_t shortcut_count;
    const char *const *shortcut_ids, *const *shortcut_descriptions, *const *shortcut_triggers;
};

// BindShortcuts' a(sa{sv}): each shortcut's id, description and preferred trigger.
static int append_shortcuts(sd_bus_message *call, cportal *portal) {
    int ok = sd_bus_message_open_container(call, 'a', "(sa{sv})") >= 0;
    for (uint32_t index = 0; ok && index < portal->shortcut_count; index++) {
        ok = sd_bus_message_open_container(call, 'r', "sa{sv}") >= 0
             && sd_bus_message_append(call, "s", portal->shortcut_ids[index]) >= 0
             && sd_bus_message_append(call, "a{sv}", 2, "description", "s", portal->shortcut_descriptions[index],
                                      "preferred_trigger", "s", portal->shortcut_triggers[index]) >= 0
             && sd_bus_message_close_container(call) >= 0;
    }
    return ok && sd_bus_message_close_container(call) >= 0 ? 0 : -1;
}

// One request's answer.
typedef struct {
    int done;
    uint32_t code;
    sd_bus_message *results;
} answer;

static void say(char *error, size_t size, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, size, format, arguments);
    va_end(arguments);
}

static int on_response(sd_bus_message *message, void *userdata, sd_bus_error *unused) {
    (void)unused;
    answer *got = userdata;
    if (got->done || sd_bus_message_read(message, "u", &got->code) < 0) return 0;
    got->results = sd_bus_message_ref(message);
    got->done = 1;
    return 0;
}

static int on_closed(sd_bus_message *message, void *userdata, sd_bus_error *unused) {
    (void)message, (void)unused;
    ((cportal *)userdata)->closed = 1;
    return 0;
}

static double now_s(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

// Calls `method` with its arguments already in `call` (the options dictionary still open, with
// handle_token in it), and waits for the Response: within STEP_TIMEOUT_S, or for as long as the
// user takes when `dialog`.
static int request(cportal *portal, sd_bus_message *call, const char *method, const char *token, int dialog,
                   cportal_interrupted interrupted, void *context, answer *got, char *error, size_t size) {
    char path[512];
    snprintf(path, sizeof path, DESKTOP "/request/%s/%s", portal->sender, token);
    sd_bus_slot *slot = NULL, *other = NULL;
    sd_bus_message *reply = NULL;
    sd_bus_error failure = SD_BUS_ERROR_NULL;
    int result = CPORTAL_FAILED;
    if (sd_bus_match_signal(portal->bus, &slot, NULL, path, REQUEST, "Response", on_response, got) < 0
        || sd_bus_message_close_container(call) < 0) {
        say(error, size, "the session bus refused to pass on the desktop portal's answers");
        goto done;
    }
    if (sd_bus_call(portal->bus, call, 0, &failure, &reply) < 0) {
        say(error, size, "the desktop portal refused %s: %s", method, failure.message ? failure.message : failure.name);
        goto done;
    }
    // Portals before 0.9 answer on a path of their own choosing.
    const char *handle = NULL;
    if (sd_bus_message_read(reply, "o", &handle) >= 0 && strcmp(handle, path) != 0) {
        sd_bus_match_signal(portal->bus, &other, NULL, handle, REQUEST, "Response", on_response, got);
    }
    double deadline = now_s() + STEP_TIMEOUT_S;
    while (!got->done) {
        int processed = sd_bus_process(portal->bus, NULL);
        if (processed < 0) {
            say(error, size, "the session bus went away while the desktop portal answered %s", method);
            result = CPORTAL_UNAVAILABLE;
            goto done;
        }
        if (processed > 0) continue;
        if (interrupted && interrupted(context)) {
            result = CPORTAL_INTERRUPTED;
            goto done;
        }
        if (!dialog && now_s() > deadline) {
            say(error, size, "the desktop portal did not answer %s within %d s", method, STEP_TIMEOUT_S);
            goto done;
        }
        sd_bus_wait(portal->bus, 200000);
    }
    switch (got->code) {
    case 0: result = CPORTAL_OK; break;
    case 1:
        say(error, size, "the desktop's dialog was cancelled: nothing was shared");
        result = CPORTAL_CANCELLED;
        break;
    default:
        say(error, size, "the desktop portal refused %s (%s answered %u)",
            strcmp(method, "AccessCamera") == 0 ? "the cameras"
                : strcmp(method, "BindShortcuts") == 0 ? "the keys" : "to share the screen", method, got->code);
    }
done:
    sd_bus_error_free(&failure);
    sd_bus_message_unref(reply);
    sd_bus_slot_unref(slot);
    sd_bus_slot_unref(other);
    return result;
}

// A new method call on `interface`, its options dictionary opened with a handle_token of its own
// in `token`.
static sd_bus_message *portal_call(cportal *portal, const char *interface, const char *method, char *token,
                                   size_t token_size) {
    sd_bus_message *call = NULL;
    if (sd_bus_message_new_method_call(portal->bus, &call, PORTAL, DESKTOP, interface, method) < 0) return NULL;
    snprintf(token, token_size, "podium%d_%u", (int)getpid(), ++portal->requests);
    int ok = 1;
    if (portal->session[0]) ok = sd_bus_message_append(call, "o", portal->session) >= 0;
    if (ok && strcmp(method, "BindShortcuts") == 0) ok = append_shortcuts(call, portal) >= 0;
    if (ok && (strcmp(method, "Start") == 0 || strcmp(method, "BindShortcuts") == 0)) {
        ok = sd_bus_message_append(call, "s", "") >= 0;
    }
    ok = ok && sd_bus_message_open_container(call, 'a', "{sv}") >= 0
         && sd_bus_message_append(call, "{sv}", "handle_token", "s", token) >= 0;
    if (!ok) return sd_bus_message_unref(call);
    return call;
}

// Skips to the entry `key` of the results' a{sv}; 1 when found (the reader inside its variant's
// entry, past the key), 0 when not.
static int find_result(sd_bus_message *results, const char *key) {
    if (sd_bus_message_rewind(results, 1) < 0 || sd_bus_message_skip(results, "u") < 0
        || sd_bus_message_enter_container(results, 'a', "{sv}") <= 0) {
        return 0;
    }
    while (sd_bus_message_enter_container(results, 'e', "sv") > 0) {
        const char *name = NULL;
        if (sd_bus_message_read(results, "s", &name) < 0) return 0;
        if (strcmp(name, key) == 0) return 1;
        if (sd_bus_message_skip(results, "v") < 0 || sd_bus_message_exit_container(results) < 0) return 0;
    }
    return 0;
}

// The first stream of Start's results: its node, size and kind.
static int read_stream(sd_bus_message *results, cportal_stream *stream) {
    if (!find_result(results, "streams") || sd_bus_message_enter_container(results, 'v', "a(ua{sv})") <= 0
        || sd_bus_message_enter_container(results, 'a', "(ua{sv})") <= 0
        || sd_bus_message_enter_container(results, 'r', "ua{sv}") <= 0
        || sd_bus_message_read(results, "u", &stream->node) < 0
        || sd_bus_message_enter_container(results, 'a', "{sv}") <= 0) {
        return 0;
    }
    while (sd_bus_message_enter_container(results, 'e', "sv") > 0) {
        const char *name = NULL;
        if (sd_bus_message_read(results, "s", &name) < 0) return 0;
        int read = 0;
        if (strcmp(name, "size") == 0) {
            read = sd_bus_message_read(results, "v", "(ii)", &stream->width, &stream->height);
        } else if (strcmp(name, "position") == 0) {
            read = sd_bus_message_read(results, "v", "(ii)", &stream->x, &stream->y);
        } else if (strcmp(name, "source_type") == 0) {
            read = sd_bus_message_read(results, "v", "u", &stream->source_type);
        } else {
            read = sd_bus_message_skip(results, "v");
        }
        if (read < 0 || sd_bus_message_exit_container(results) < 0) return 0;
    }
    return 1;
}

// A string result (`session_handle` is a string, or an object path in some portals).
static int read_string(sd_bus_message *results, const char *key, char *value, size_t size) {
    if (!find_result(results, key)) return 0;
    char type = 0;
    const char *contents = NULL, *text = NULL;
    if (sd_bus_message_peek_type(results, &type, &contents) < 0 || !contents
        || (strcmp(contents, "s") != 0 && strcmp(contents, "o") != 0)
        || sd_bus_message_read(results, "v", contents, &text) < 0 || !text) {
        return 0;
    }
    snprintf(value, size, "%s", text);
    return 1;
}

// The property `name` of `interface` (of D-Bus type `type`); 0 with `error` set when it cannot be read.
static int property(cportal *portal, const char *interface, const char *name, char type, void *value, char *error,
                    size_t size) {
    sd_bus_error failure = SD_BUS_ERROR_NULL;
    int read = sd_bus_get_property_trivial(portal->bus, PORTAL, DESKTOP, interface, name, &failure, type, value);
    if (read < 0) {
        if (sd_bus_error_has_names(&failure, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER)) {
            say(error, size, "no desktop portal on the session bus (%s is not there: is xdg-desktop-portal "
                "installed and a backend for this desktop?)", PORTAL);
        } else {
            say(error, size, "the desktop portal has no %s (%s: %s)",
                strcmp(interface, CAMERA) == 0 ? "cameras"
                    : strcmp(interface, SHORTCUTS) == 0 ? "global shortcuts" : "screen casting", interface,
                failure.message ? failure.message : failure.name);
        }
        sd_bus_error_free(&failure);
        return 0;
    }
    return 1;
}

// CreateSession on `interface`, and the session's Closed signal watched: CPORTAL_OK with
// `portal->session` named, or what failed in `error`.
static int create_session(cportal *portal, const char *interface, cportal_interrupted interrupted, void *context,
                          char *error, size_t size) {
    char token[64];
    answer created = {0};
    int result = CPORTAL_FAILED;
    sd_bus_message *call = portal_call(portal, interface, "CreateSession", token, sizeof token);
    if (!call || sd_bus_message_append(call, "{sv}", "session_handle_token", "s", token) < 0) {
        say(error, size, "could not write a request to the desktop portal");
    } else {
        result = request(portal, call, "CreateSession", token, 0, interrupted, context, &created, error, size);
        if (result == CPORTAL_OK
            && !read_string(created.results, "session_handle", portal->session, sizeof portal->session)) {
            say(error, size, "the desktop portal made a session without naming it");
            result = CPORTAL_FAILED;
        }
    }
    if (result == CPORTAL_OK) {
        sd_bus_match_signal(portal->bus, &portal->closed_slot, NULL, portal->session, SESSION, "Closed", on_closed,
                            portal);
    }
    sd_bus_message_unref(call);
    sd_bus_message_unref(created.results);
    return result;
}

// Connects `portal` to the session bus; 0 with `error` set when there is none.
static int open_bus(cportal *portal, char *error, size_t error_size) {
    int opened = sd_bus_open_user(&portal->bus);
    const char *unique = NULL;
    if (opened >= 0) opened = sd_bus_get_unique_name(portal->bus, &unique);
    if (opened < 0) {
        const char *address = getenv("DBUS_SESSION_BUS_ADDRESS");
        say(error, error_size, "no session bus at %s (%s): the desktop portal is reached through it",
            address && *address ? address : "$XDG_RUNTIME_DIR/bus", strerror(-opened));
        return 0;
    }
    snprintf(portal->sender, sizeof portal->sender, "%s", unique + (unique[0] == ':'));
    for (char *at = portal->sender; *at; at++) {
        if (*at == '.') *at = '_';
    }
    return 1;
}

int cportal_open(uint32_t types, int draws_cursor, const char *restore_token, cportal_interrupted interrupted,
                 void *context, cportal **session, cportal_stream *stream, char *error, size_t error_size) {
    memset(stream, 0, sizeof *stream);
    stream->fd = -1;
    cportal *portal = calloc(1, sizeof *portal);
    if (!portal) {
        say(error, error_size, "out of memory");
        return CPORTAL_FAILED;
    }
    if (!open_bus(portal, error, error_size)) {
        cportal_close(portal);
        return CPORTAL_UNAVAILABLE;
    }
    uint32_t version = 0, available = 0, cursors = 0;
    if (!property(portal, SCREENCAST, "version", 'u', &version, error, error_size)
        || !property(portal, SCREENCAST, "AvailableSourceTypes", 'u', &available, error, error_size)
        || !property(portal, SCREENCAST, "AvailableCursorModes", 'u', &cursors, error, error_size)) {
        cportal_close(portal);
        return CPORTAL_UNAVAILABLE;
    }
    if (!(available & types)) {
        say(error, error_size, "the desktop portal shares no %s",
            types == CPORTAL_WINDOW ? "windows" : types == CPORTAL_VIRTUAL ? "virtual monitors (KDE's does)"
                                                                           : "monitors");
        cportal_close(portal);
        return CPORTAL_UNAVAILABLE;
    }
    char token[64];
    answer selected = {0}, started = {0};
    sd_bus_message *call = NULL;
    int result = create_session(portal, SCREENCAST, interrupted, context, error, error_size);
    if (result != CPORTAL_OK) goto done;

    call = portal_call(portal, SCREENCAST, "SelectSources", token, sizeof token);
    // The pointer sent apart where the desktop can: its place is what the highlight and the zoom
    // need, and its picture is drawn in from it (or not) as asked.
    uint32_t cursor = (cursors & CURSOR_METADATA) ? CURSOR_METADATA : draws_cursor ? CURSOR_EMBEDDED : CURSOR_HIDDEN;
    stream->cursor_metadata = cursor == CURSOR_METADATA;
    int written = call && sd_bus_message_append(call, "{sv}{sv}", "types", "u", available & types,
                                                "multiple", "b", 0) >= 0;
    if (written && (cursors & cursor)) written = sd_bus_message_append(call, "{sv}", "cursor_mode", "u", cursor) >= 0;
    if (written && version >= 4) {
        written = sd_bus_message_append(call, "{sv}", "persist_mode", "u", (uint32_t)PERSIST_UNTIL_REVOKED) >= 0;
        if (written && restore_token && *restore_token) {
            written = sd_bus_message_append(call, "{sv}", "restore_token", "s", restore_token) >= 0;
        }
    }
    if (!written) {
        say(error, error_size, "could not write a request to the desktop portal");
        result = CPORTAL_FAILED;
        goto done;
    }
    result = request(portal, call, "SelectSources", token, 0, interrupted, context, &selected, error, error_size);
    call = sd_bus_message_unref(call);
    if (result != CPORTAL_OK) goto done;

    // The desktop's dialog (or its remembered choice): as long as the user takes.
    call = portal_call(portal, SCREENCAST, "Start", token, sizeof token);
    if (!call) {
        say(error, error_size, "could not write a request to the desktop portal");
        result = CPORTAL_FAILED;
        goto done;
    }
    result = request(portal, call, "Start", token, 1, interrupted, context, &started, error, error_size);
    call = sd_bus_message_unref(call);
    if (result != CPORTAL_OK) goto done;
    if (!read_stream(started.results, stream)) {
        say(error, error_size, "the desktop portal started sharing but named no stream");
        result = CPORTAL_FAILED;
        goto done;
    }
    read_string(started.results, "restore_token", stream->restore_token, sizeof stream->restore_token);

    stream->fd = cportal_connect(portal, error, error_size);
    if (stream->fd < 0) result = CPORTAL_FAILED;

done:
    sd_bus_message_unref(call);
    sd_bus_message_unref(selected.results);
    sd_bus_message_unref(started.results);
    if (result == CPORTAL_OK) {
        *session = portal;
    } else {
        cportal_close(portal);
    }
    return result;
}

int cportal_connect(cportal *portal, char *error, size_t error_size) {
    sd_bus_message *reply = NULL;
    sd_bus_error failure = SD_BUS_ERROR_NULL;
    int descriptor = -1, kept = -1;
    int called = portal->session[0]
        ? sd_bus_call_method(portal->bus, PORTAL, DESKTOP, SCREENCAST, "OpenPipeWireRemote", &failure, &reply,
                             "oa{sv}", portal->session, 0)
        : sd_bus_call_method(portal->bus, PORTAL, DESKTOP, CAMERA, "OpenPipeWireRemote", &failure, &reply, "a{sv}", 0);
    if (called < 0
        || sd_bus_message_read(reply, "h", &descriptor) < 0) {
        say(error, error_size, "the desktop portal gave no connection to PipeWire (%s)",
            failure.message ? failure.message : "no descriptor in its answer");
    } else {
        // The descriptor is the message's: a copy of our own outlives it.
        kept = fcntl(descriptor, F_DUPFD_CLOEXEC, 3);
        if (kept < 0) {
            say(error, error_size, "could not keep the desktop portal's PipeWire connection: %s", strerror(errno));
        }
    }
    sd_bus_error_free(&failure);
    sd_bus_message_unref(reply);
    return kept;
}

int cportal_wait(cportal *portal, uint64_t timeout_us) {
    int processed;
    while (!portal->closed && (processed = sd_bus_process(portal->bus, NULL)) != 0) {
        if (processed < 0) portal->closed = 1;
    }
    if (!portal->closed && sd_bus_wait(portal->bus, timeout_us) < 0) portal->closed = 1;
    return portal->closed;
}

void cportal_close(cportal *portal) {
    if (!portal) return;
    if (portal->bus && portal->session[0] && !portal->closed) {
        sd_bus_message *call = NULL;
        if (sd_bus_message_new_method_call(portal->bus, &call, PORTAL, portal->session, SESSION, "Close") >= 0) {
            sd_bus_call(portal->bus, call, 2000000, NULL, NULL);
        }
        sd_bus_message_unref(call);
    }
    sd_bus_slot_unref(portal->closed_slot);
    sd_bus_slot_unref(portal->activated_slot);
    sd_bus_flush_close_unref(portal->bus);
    free(portal);
}

int cportal_camera_access(cportal_interrupted interrupted, void *context, char *error, size_t error_size) {
    cportal portal = {0};
    int present = 0, result = CPORTAL_UNAVAILABLE;
    char token[64];
    answer granted = {0};
    sd_bus_message *call = NULL;
    if (!open_bus(&portal, error, error_size) || !property(&portal, CAMERA, "IsCameraPresent", 'b', &present, error,
                                                           error_size)) {
        goto done;
    }
    if (!present) {
        say(error, error_size, "the desktop's Camera portal says there is no camera");
        goto done;
    }
    result = CPORTAL_FAILED;
    call = portal_call(&portal, CAMERA, "AccessCamera", token, sizeof token);
    if (!call) {
        say(error, error_size, "could not write a request to the desktop portal");
        goto done;
    }
    // The desktop asks the user the first time: as long as they take.
    result = request(&portal, call, "AccessCamera", token, 1, interrupted, context, &granted, error, error_size);
done:
    sd_bus_message_unref(call);
    sd_bus_message_unref(granted.results);
    sd_bus_flush_close_unref(portal.bus);
    return result;
}

int cportal_camera_connect(char *error, size_t error_size) {
    cportal portal = {0};
    int descriptor = open_bus(&portal, error, error_size) ? cportal_connect(&portal, error, error_size) : -1;
    sd_bus_flush_close_unref(portal.bus);
    return descriptor;
}

static int on_activated(sd_bus_message *message, void *userdata, sd_bus_error *unused) {
    (void)unused;
    cportal *portal = userdata;
    const char *session = NULL, *id = NULL;
    if (sd_bus_message_read(message, "os", &session, &id) < 0 || strcmp(session, portal->session) != 0) return 0;
    if (portal->on_activated) portal->on_activated(portal->activated_context, id, "");
    return 0;
}

// The shortcuts of BindShortcuts' results, each handed to `on_bound` with its trigger's description.
static void read_bound(sd_bus_message *results, cportal_shortcut_handler on_bound, void *context) {
    if (!find_result(results, "shortcuts") || sd_bus_message_enter_container(results, 'v', "a(sa{sv})") <= 0
        || sd_bus_message_enter_container(results, 'a', "(sa{sv})") <= 0) {
        return;
    }
    while (sd_bus_message_enter_container(results, 'r', "sa{sv}") > 0) {
        const char *id = NULL, *trigger = "";
        if (sd_bus_message_read(results, "s", &id) < 0 || sd_bus_message_enter_container(results, 'a', "{sv}") <= 0) {
            return;
        }
        while (sd_bus_message_enter_container(results, 'e', "sv") > 0) {
            const char *name = NULL;
            if (sd_bus_message_read(results, "s", &name) < 0) return;
            int read = strcmp(name, "trigger_description") == 0 ? sd_bus_message_read(results, "v", "s", &trigger)
                : sd_bus_message_skip(results, "v");
            if (read < 0 || sd_bus_message_exit_container(results) < 0) return;
        }
        if (sd_bus_message_exit_container(results) < 0 || sd_bus_message_exit_container(results) < 0) return;
        on_bound(context, id, trigger);
    }
}

int cportal_shortcuts_open(uint32_t count, const char *const *ids, const char *const *descriptions,
                           const char *const *triggers, cportal_interrupted interrupted, void *context,
                           cportal_shortcut_handler on_bound, cportal **session, char *error, size_t error_size) {
    cportal *portal = calloc(1, sizeof *portal);
    if (!portal) {
        say(error, error_size, "out of memory");
        return CPORTAL_FAILED;
    }
    uint32_t version = 0;
    if (!open_bus(portal, error, error_size)
        || !property(portal, SHORTCUTS, "version", 'u', &version, error, error_size)) {
        cportal_close(portal);
        return CPORTAL_UNAVAILABLE;
    }
    char token[64];
    answer bound = {0};
    sd_bus_message *call = NULL;
    int result = create_session(portal, SHORTCUTS, interrupted, context, error, error_size);
    if (result != CPORTAL_OK) goto done;
    sd_bus_match_signal(portal->bus, &portal->activated_slot, NULL, DESKTOP, SHORTCUTS, "Activated", on_activated,
                        portal);
    portal->shortcut_count = count;
    portal->shortcut_ids = ids;
    portal->shortcut_descriptions = descriptions;
    portal->shortcut_triggers = triggers;
    call = portal_call(portal, SHORTCUTS, "BindShortcuts", token, sizeof token);
    portal->shortcut_count = 0;
    if (!call) {
        say(error, error_size, "could not write a request to the desktop portal");
        result = CPORTAL_FAILED;
        goto done;
    }
    // The desktop may ask the user to confirm the keys: as long as they take.
    result = request(portal, call, "BindShortcuts", token, 1, interrupted, context, &bound, error, error_size);
    call = sd_bus_message_unref(call);
    if (result == CPORTAL_OK) read_bound(bound.results, on_bound, context);
done:
    sd_bus_message_unref(call);
    sd_bus_message_unref(bound.results);
    if (result == CPORTAL_OK) {
        *session = portal;
    } else {
        cportal_close(portal);
    }
    return result;
}

int cportal_shortcuts_wait(cportal *portal, uint64_t timeout_us, cportal_shortcut_handler on_activated,
                           void *context) {
    portal->on_activated = on_activated;
    portal->activated_context = context;
    int closed = cportal_wait(portal, timeout_us);
    portal->on_activated = NULL;
    return closed;
}

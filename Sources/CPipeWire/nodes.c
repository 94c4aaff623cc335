// The nodes of one media class the user's PipeWire has now (see cpipewire.h).
//
// A registry is read until the server says it has sent every global (a core sync's `done`), on a
// loop of the caller's thread, which a timer ends if the server does not answer.
#include "cpipewire.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <pipewire/pipewire.h>
#include <spa/utils/result.h>

struct listing {
    struct pw_main_loop *loop;
    const char *media_class;
    cpw_node_handler on_node;
    void *context;
    int pending;
    int failed;
    char *error;
    size_t error_size;
};

static void on_global(void *data, uint32_t id, uint32_t permissions, const char *type, uint32_t version,
                      const struct spa_dict *props) {
    struct listing *listing = data;
    (void)permissions;
    (void)version;
    if (props == NULL || strcmp(type, PW_TYPE_INTERFACE_Node) != 0) return;
    const char *media_class = spa_dict_lookup(props, PW_KEY_MEDIA_CLASS);
    if (media_class == NULL || strcmp(media_class, listing->media_class) != 0) return;
    listing->on_node(listing->context, id, spa_dict_lookup(props, PW_KEY_NODE_NAME),
                     spa_dict_lookup(props, PW_KEY_NODE_DESCRIPTION), spa_dict_lookup(props, PW_KEY_NODE_NICK),
                     spa_dict_lookup(props, PW_KEY_APP_NAME));
}

static const struct pw_registry_events registry_events = { PW_VERSION_REGISTRY_EVENTS, .global = on_global };

static void on_done(void *data, uint32_t id, int seq) {
    struct listing *listing = data;
    if (id == PW_ID_CORE && seq == listing->pending) pw_main_loop_quit(listing->loop);
}

static void on_error(void *data, uint32_t id, int seq, int res, const char *message) {
    struct listing *listing = data;
    (void)seq;
    if (id != PW_ID_CORE) return;
    snprintf(listing->error, listing->error_size, "%s (%s)", message ? message : "PipeWire failed",
             spa_strerror(res));
    listing->failed = 1;
    pw_main_loop_quit(listing->loop);
}

static const struct pw_core_events core_events = { PW_VERSION_CORE_EVENTS, .done = on_done, .error = on_error };

static void on_timeout(void *data, uint64_t expirations) {
    struct listing *listing = data;
    (void)expirations;
    snprintf(listing->error, listing->error_size, "PipeWire did not answer within 5 s");
    listing->failed = 1;
    pw_main_loop_quit(listing->loop);
}

int cpw_list_nodes(const char *remote, int fd, const char *media_class, cpw_node_handler on_node, void *context,
                   char *error, size_t error_size) {
    pw_init(NULL, NULL);
    struct listing listing = {
        .media_class = media_class, .on_node = on_node, .context = context, .error = error, .error_size = error_size,
    };
    listing.loop = pw_main_loop_new(NULL);
    if (listing.loop == NULL) {
        snprintf(error, error_size, "cannot make PipeWire's loop");
        return -1;
    }
    struct pw_loop *loop = pw_main_loop_get_loop(listing.loop);
    struct pw_context *pw_context = pw_context_new(loop, NULL, 0);
    struct pw_core *core = !pw_context ? NULL
        : fd >= 0 ? pw_context_connect_fd(pw_context, fd, NULL, 0)
        : pw_context_connect(pw_context, remote ? pw_properties_new(PW_KEY_REMOTE_NAME, remote, NULL) : NULL, 0);
    if (core == NULL) {
        if (fd >= 0 && pw_context == NULL) close(fd);
        snprintf(error, error_size, "cannot connect to PipeWire");
        if (pw_context) pw_context_destroy(pw_context);
        pw_main_loop_destroy(listing.loop);
        return -1;
    }
    struct spa_hook core_listener, registry_listener;
    spa_zero(core_listener);
    spa_zero(registry_listener);
    struct pw_registry *registry = pw_core_get_registry(core, PW_VERSION_REGISTRY, 0);
    pw_registry_add_listener(registry, &registry_listener, &registry_events, &listing);
    pw_core_add_listener(core, &core_listener, &core_events, &listing);
    struct spa_source *timer = pw_loop_add_timer(loop, on_timeout, &listing);
    struct timespec timeout = { .tv_sec = 5 };
    pw_loop_update_timer(loop, timer, &timeout, NULL, false);
    listing.pending = pw_core_sync(core, PW_ID_CORE, 0);
    pw_main_loop_run(listing.loop);
    pw_loop_destroy_source(loop, timer);
    spa_hook_remove(&registry_listener);
    spa_hook_remove(&core_listener);
    pw_proxy_destroy((struct pw_proxy *)registry);
    pw_core_disconnect(core);
    pw_context_destroy(pw_context);
    pw_main_loop_destroy(listing.loop);
    return listing.failed ? -1 : 0;
}

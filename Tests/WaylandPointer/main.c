// The tests' pointer on a headless sway, which has no input devices: a virtual pointer (wlroots'
// zwlr_virtual_pointer_v1) that lives as long as this program, so the seat has a pointer, moved
// and pressed by the steps its arguments list, each sent once the compositor had the last:
//   X,Y         move to (X, Y) of the layout, WIDTH by HEIGHT
//   down / up   the left button
//   wait:MS     wait MS milliseconds (the seat's clients are told of a new pointer first)
// The protocol's code is CWayland's.
//
//   wayland-virtual-pointer WIDTH HEIGHT STEP...   (with $WAYLAND_DISPLAY naming the compositor)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wayland-client.h>
#include "shim.h"

static struct zwlr_virtual_pointer_manager_v1 *manager;

static void announced(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
                      uint32_t version) {
    (void)data;
    if (strcmp(interface, zwlr_virtual_pointer_manager_v1_interface.name) == 0) {
        manager = wl_registry_bind(registry, name, &zwlr_virtual_pointer_manager_v1_interface, 1);
    }
    (void)version;
}

static void removed(void *data, struct wl_registry *registry, uint32_t name) {
    (void)data; (void)registry; (void)name;
}

static uint32_t milliseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint32_t)(now.tv_sec * 1000 + now.tv_nsec / 1000000);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: wayland-virtual-pointer WIDTH HEIGHT STEP...\n");
        return 64;
    }
    uint32_t width = (uint32_t)strtoul(argv[1], NULL, 10), height = (uint32_t)strtoul(argv[2], NULL, 10);
    struct wl_display *display = wl_display_connect(NULL);
    if (!display) {
        fprintf(stderr, "wayland-virtual-pointer: no Wayland display\n");
        return 69;
    }
    struct wl_registry *registry = wl_display_get_registry(display);
    static const struct wl_registry_listener listener = {announced, removed};
    wl_registry_add_listener(registry, &listener, NULL);
    wl_display_roundtrip(display);
    if (!manager) {
        fprintf(stderr, "wayland-virtual-pointer: the compositor has no virtual pointers\n");
        return 69;
    }
    struct zwlr_virtual_pointer_v1 *pointer = zwlr_virtual_pointer_manager_v1_create_virtual_pointer(manager, NULL);
    wl_display_roundtrip(display);
    for (int index = 3; index < argc; index++) {
        const char *step = argv[index];
        unsigned x, y, wait;
        if (sscanf(step, "wait:%u", &wait) == 1) {
            struct timespec pause = {wait / 1000, (long)(wait % 1000) * 1000000};
            nanosleep(&pause, NULL);
            continue;
        } else if (sscanf(step, "%u,%u", &x, &y) == 2) {
            zwlr_virtual_pointer_v1_motion_absolute(pointer, milliseconds(), x, y, width, height);
        } else if (strcmp(step, "down") == 0 || strcmp(step, "up") == 0) {
            // BTN_LEFT, as linux/input-event-codes.h has it.
            uint32_t state = step[0] == 'd' ? WL_POINTER_BUTTON_STATE_PRESSED : WL_POINTER_BUTTON_STATE_RELEASED;
            zwlr_virtual_pointer_v1_button(pointer, milliseconds(), 0x110, state);
        } else {
            fprintf(stderr, "wayland-virtual-pointer: not a step: %s\n", step);
            return 64;
        }
        zwlr_virtual_pointer_v1_frame(pointer);
        if (wl_display_roundtrip(display) < 0) return 69;
    }
    zwlr_virtual_pointer_v1_destroy(pointer);
    wl_display_roundtrip(display);
    wl_display_disconnect(display);
    return 0;
}

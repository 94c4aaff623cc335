#ifndef PODIUM_CXCB_SHIM_H
#define PODIUM_CXCB_SHIM_H

#include <stdlib.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <xcb/xcb.h>
#include <xcb/shm.h>
#include <xcb/randr.h>
#include <xcb/damage.h>
#include <xcb/xfixes.h>
#include <xcb/composite.h>
#include <xcb/xinput.h>
#include <xcb/shape.h>
#include <xcb/xtest.h>

// Extension ids are globals of an incomplete type, which Swift cannot take the address of.
static inline xcb_extension_t *cxcb_shm_id(void) { return &xcb_shm_id; }
static inline xcb_extension_t *cxcb_randr_id(void) { return &xcb_randr_id; }
static inline xcb_extension_t *cxcb_damage_id(void) { return &xcb_damage_id; }
static inline xcb_extension_t *cxcb_xfixes_id(void) { return &xcb_xfixes_id; }
static inline xcb_extension_t *cxcb_composite_id(void) { return &xcb_composite_id; }
static inline xcb_extension_t *cxcb_input_id(void) { return &xcb_input_id; }
static inline xcb_extension_t *cxcb_shape_id(void) { return &xcb_shape_id; }
static inline xcb_extension_t *cxcb_test_id(void) { return &xcb_test_id; }

// XInput 2's raw button presses of every device, selected on the root window: each click,
// whichever window gets it. The mask list is a header followed by its mask words.
static inline void cxcb_select_raw_pointer_events(xcb_connection_t *connection, xcb_window_t root) {
    struct { xcb_input_event_mask_t head; uint32_t mask; } masks = {
        { XCB_INPUT_DEVICE_ALL_MASTER, 1 },
        XCB_INPUT_XI_EVENT_MASK_RAW_BUTTON_PRESS | XCB_INPUT_XI_EVENT_MASK_RAW_MOTION
    };
    xcb_input_xi_select_events(connection, root, 1, &masks.head);
}

// shmat returns (void *)-1 on failure, a compound cast Swift does not import.
static inline int cxcb_shmat_failed(const void *address) { return address == (void *)-1; }

#endif

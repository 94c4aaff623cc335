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

// Extension ids are globals of an incomplete type, which Swift cannot take the address of.
static inline xcb_extension_t *cxcb_shm_id(void) { return &xcb_shm_id; }
static inline xcb_extension_t *cxcb_randr_id(void) { return &xcb_randr_id; }
static inline xcb_extension_t *cxcb_damage_id(void) { return &xcb_damage_id; }
static inline xcb_extension_t *cxcb_xfixes_id(void) { return &xcb_xfixes_id; }
static inline xcb_extension_t *cxcb_composite_id(void) { return &xcb_composite_id; }

// shmat returns (void *)-1 on failure, a compound cast Swift does not import.
static inline int cxcb_shmat_failed(const void *address) { return address == (void *)-1; }

#endif

// A PipeWire video source for the tests that says what changed, as a desktop's screen cast does
// (GStreamer's pipewiresink says nothing): a grey 640x360 picture with a white band 16 rows high
// moving down it, two rows a frame, each frame's damage metadata naming the rows the band left
// and entered. It runs until SIGINT or SIGTERM.
//
// With `pointer`, the picture stays grey (no band) and each frame's cursor metadata puts the
// pointer at (100, 100): a red square 16 pixels a side, its hot spot at its top left corner, as a
// desktop's screen cast sends the pointer apart.
//
// A fourth argument, WxH, makes the picture that size (640x360 by default).
//
// usage: pipewire-damage-producer NODE-NAME [FPS] [pointer|band] [WxH]
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pipewire/pipewire.h>
#include <spa/buffer/meta.h>
#include <spa/param/video/format-utils.h>

enum { BAND = 16, STEP = 2, REGIONS = 4 };
// The picture's size, and its rows' length in bytes.
static int width = 640, height = 360, stride = 640 * 4;
enum { POINTER_X = 100, POINTER_Y = 100, POINTER_SIDE = 16 };
#define CURSOR_META_SIZE \
    (sizeof(struct spa_meta_cursor) + sizeof(struct spa_meta_bitmap) + POINTER_SIDE * POINTER_SIDE * 4)

struct producer {
    struct pw_main_loop *loop;
    struct pw_stream *stream;
    struct spa_hook listener;
    struct spa_source *timer;
    int fps;
    int top;      // the band's top row
    uint64_t sequence;
    int streaming;
    int pointer;  // sends the pointer as cursor metadata, over a still picture
};

// The pointer at its place, its picture an opaque red square.
static void write_cursor(struct spa_buffer *buffer) {
    struct spa_meta_cursor *cursor = spa_buffer_find_meta_data(buffer, SPA_META_Cursor, CURSOR_META_SIZE);
    if (cursor == NULL) return;
    cursor->id = 1;
    cursor->flags = 0;
    cursor->position = SPA_POINT(POINTER_X, POINTER_Y);
    cursor->hotspot = SPA_POINT(0, 0);
    cursor->bitmap_offset = sizeof(*cursor);
    struct spa_meta_bitmap *bitmap = SPA_PTROFF(cursor, cursor->bitmap_offset, struct spa_meta_bitmap);
    bitmap->format = SPA_VIDEO_FORMAT_RGBA;
    bitmap->size = SPA_RECTANGLE(POINTER_SIDE, POINTER_SIDE);
    bitmap->stride = POINTER_SIDE * 4;
    bitmap->offset = sizeof(*bitmap);
    uint8_t *pixels = SPA_PTROFF(bitmap, bitmap->offset, uint8_t);
    for (int i = 0; i < POINTER_SIDE * POINTER_SIDE; i++) {
        pixels[i * 4] = 0xff;
        pixels[i * 4 + 1] = 0;
        pixels[i * 4 + 2] = 0;
        pixels[i * 4 + 3] = 0xff;
    }
}

static void fill_row(uint8_t *row, uint8_t level) { memset(row, level, stride); }

static void on_process(void *data) {
    struct producer *producer = data;
    struct pw_buffer *taken = pw_stream_dequeue_buffer(producer->stream);
    if (taken == NULL) return;
    struct spa_buffer *buffer = taken->buffer;
    uint8_t *pixels = buffer->datas[0].data;
    if (pixels == NULL) {
        pw_stream_queue_buffer(producer->stream, taken);
        return;
    }
    // Buffers are reused in turn, so each is drawn whole; the metadata says what changed since
    // the frame before, which is what a consumer holding that frame needs.
    int previous = producer->top;
    producer->top = (producer->top + STEP) % (height - BAND);
    if (producer->pointer) write_cursor(buffer);
    for (int y = 0; y < height; y++) {
        int in_band = !producer->pointer && y >= producer->top && y < producer->top + BAND;
        fill_row(pixels + (size_t)y * stride, in_band ? 0xff : 0x80);
    }
    struct spa_meta_region *regions = spa_buffer_find_meta_data(buffer, SPA_META_VideoDamage,
                                                                sizeof(*regions) * REGIONS);
    if (regions != NULL) {
        memset(regions, 0, sizeof(*regions) * REGIONS);
        int low = previous < producer->top ? previous : producer->top;
        int high = (previous > producer->top ? previous : producer->top) + BAND;
        if (producer->top < previous) {
            // Wrapped to the top: the old band and the new one, apart.
            regions[0].region = SPA_REGION(0, previous, width, BAND);
            regions[1].region = SPA_REGION(0, producer->top, width, BAND);
        } else {
            regions[0].region = SPA_REGION(0, low, width, high - low);
        }
    }
    struct spa_meta_header *header = spa_buffer_find_meta_data(buffer, SPA_META_Header, sizeof(*header));
    if (header != NULL) {
        // Numbered, so that a consumer sees which frames it missed (and their damage with them).
        memset(header, 0, sizeof(*header));
        header->seq = producer->sequence++;
    }
    buffer->datas[0].chunk->offset = 0;
    buffer->datas[0].chunk->size = stride * height;
    buffer->datas[0].chunk->stride = stride;
    pw_stream_queue_buffer(producer->stream, taken);
}

static void on_timer(void *data, uint64_t expirations) {
    (void)expirations;
    struct producer *producer = data;
    if (producer->streaming) pw_stream_trigger_process(producer->stream);
}

static void on_state(void *data, enum pw_stream_state old, enum pw_stream_state state, const char *error) {
    (void)old;
    struct producer *producer = data;
    producer->streaming = state == PW_STREAM_STATE_STREAMING;
    if (state == PW_STREAM_STATE_ERROR) {
        fprintf(stderr, "pipewire-damage-producer: %s\n", error ? error : "stream error");
        pw_main_loop_quit(producer->loop);
    }
    struct timespec interval = {0, 1000000000L / producer->fps};
    struct timespec off = {0, 0};
    pw_loop_update_timer(pw_main_loop_get_loop(producer->loop), producer->timer,
                         producer->streaming ? &interval : &off, producer->streaming ? &interval : &off, 0);
}

static void on_param_changed(void *data, uint32_t id, const struct spa_pod *param) {
    struct producer *producer = data;
    if (param == NULL || id != SPA_PARAM_Format) return;
    uint8_t room[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(room, sizeof room);
    const struct spa_pod *params[4];
    params[0] = spa_pod_builder_add_object(&builder, SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers,
        SPA_PARAM_BUFFERS_buffers, SPA_POD_CHOICE_RANGE_Int(4, 2, 8),
        SPA_PARAM_BUFFERS_blocks, SPA_POD_Int(1),
        SPA_PARAM_BUFFERS_size, SPA_POD_Int(stride * height),
        SPA_PARAM_BUFFERS_stride, SPA_POD_Int(stride),
        SPA_PARAM_BUFFERS_dataType, SPA_POD_CHOICE_FLAGS_Int(1 << SPA_DATA_MemFd));
    params[1] = spa_pod_builder_add_object(&builder, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
        SPA_PARAM_META_type, SPA_POD_Id(SPA_META_Header),
        SPA_PARAM_META_size, SPA_POD_Int(sizeof(struct spa_meta_header)));
    params[2] = spa_pod_builder_add_object(&builder, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
        SPA_PARAM_META_type, SPA_POD_Id(SPA_META_VideoDamage),
        SPA_PARAM_META_size, SPA_POD_CHOICE_RANGE_Int(sizeof(struct spa_meta_region) * REGIONS,
                                                      sizeof(struct spa_meta_region) * 1,
                                                      sizeof(struct spa_meta_region) * REGIONS));
    params[3] = spa_pod_builder_add_object(&builder, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
        SPA_PARAM_META_type, SPA_POD_Id(SPA_META_Cursor),
        SPA_PARAM_META_size, SPA_POD_Int(CURSOR_META_SIZE));
    pw_stream_update_params(producer->stream, params, producer->pointer ? 4 : 3);
}

static const struct pw_stream_events stream_events = {
    PW_VERSION_STREAM_EVENTS,
    .state_changed = on_state,
    .param_changed = on_param_changed,
    .process = on_process,
};

static void on_signal(void *data, int number) {
    (void)number;
    pw_main_loop_quit(((struct producer *)data)->loop);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: pipewire-damage-producer NODE-NAME [FPS] [pointer|band] [WxH]\n");
        return 64;
    }
    pw_init(&argc, &argv);
    struct producer producer = {.fps = argc > 2 ? atoi(argv[2]) : 30};
    if (producer.fps < 1 || producer.fps > 240) producer.fps = 30;
    producer.pointer = argc > 3 && strcmp(argv[3], "pointer") == 0;
    if (argc > 4 && (sscanf(argv[4], "%dx%d", &width, &height) != 2 || width < BAND || height < 2 * BAND
                     || width > 8192 || height > 8192)) {
        fprintf(stderr, "pipewire-damage-producer: expected WxH, such as 1920x1080\n");
        return 64;
    }
    stride = width * 4;
    producer.loop = pw_main_loop_new(NULL);
    struct pw_loop *loop = pw_main_loop_get_loop(producer.loop);
    pw_loop_add_signal(loop, SIGINT, on_signal, &producer);
    pw_loop_add_signal(loop, SIGTERM, on_signal, &producer);
    producer.timer = pw_loop_add_timer(loop, on_timer, &producer);
    producer.stream = pw_stream_new_simple(loop, argv[1],
        pw_properties_new(PW_KEY_MEDIA_CLASS, "Video/Source", PW_KEY_NODE_NAME, argv[1], NULL),
        &stream_events, &producer);
    uint8_t room[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(room, sizeof room);
    const struct spa_pod *format = spa_pod_builder_add_object(&builder,
        SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat,
        SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video),
        SPA_FORMAT_mediaSubtype, SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw),
        SPA_FORMAT_VIDEO_format, SPA_POD_Id(SPA_VIDEO_FORMAT_BGRx),
        SPA_FORMAT_VIDEO_size, SPA_POD_Rectangle(&SPA_RECTANGLE(width, height)),
        SPA_FORMAT_VIDEO_framerate, SPA_POD_Fraction(&SPA_FRACTION(producer.fps, 1)));
    if (pw_stream_connect(producer.stream, PW_DIRECTION_OUTPUT, PW_ID_ANY,
                          PW_STREAM_FLAG_DRIVER | PW_STREAM_FLAG_MAP_BUFFERS,
                          &format, 1) < 0) {
        fprintf(stderr, "pipewire-damage-producer: cannot connect to PipeWire\n");
        return 69;
    }
    pw_main_loop_run(producer.loop);
    pw_stream_destroy(producer.stream);
    pw_main_loop_destroy(producer.loop);
    pw_deinit();
    return 0;
}

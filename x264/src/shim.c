/* A thin C layer over libx264 for the Rust side (lib.rs): x264_param_t and
 * x264_picture_t are large, build-specific structs, so their fields are set here, against
 * the installed x264.h, and Rust sees only the handful of plain types below.
 *
 * The parameters are set in the order and to the values GStreamer's x264enc (1.22) sets them
 * for the pipeline this replaced (appsrc ! x264enc ! video/x-h264,profile=high ! h264parse):
 * preset, access unit delimiters on, AVC (length-prefixed) output, a nanosecond time base,
 * the option strings, the frame format, the VUI of BT.709 limited-range input, CRF capped by a
 * VBV of 600 ms, then the High profile. So the bitstream is the one x264enc wrote. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x264.h>

typedef struct {
    int width;
    int height;
    int fps;
    const char *preset;
    float crf;
    int vbv_max_kbps;
    int vbv_buffer_kbit;
    int keyint;
    int threads;
    int sync_lookahead;
    /* x264's `asm` option, or NULL to let x264 choose. */
    const char *asm_name;
} rs_x264_config;

typedef struct {
    const uint8_t *data;
    int size;
    int64_t pts;
    int64_t dts;
    int keyframe;
} rs_x264_packet;

typedef struct {
    x264_t *encoder;
    x264_param_t param;
} rs_x264;

static void write_error(char *err, size_t len, const char *what) {
    if (err && len) {
        snprintf(err, len, "%s", what);
    }
}

static int parse(x264_param_t *param, const char *name, const char *value, char *err,
                 size_t len) {
    if (x264_param_parse(param, name, value) != 0) {
        char what[128];
        snprintf(what, sizeof what, "x264 rejected the option %s=%s", name, value);
        write_error(err, len, what);
        return -1;
    }
    return 0;
}

rs_x264 *rs_x264_open(const rs_x264_config *config, char *err, size_t err_len) {
    rs_x264 *shim = calloc(1, sizeof *shim);
    if (!shim) {
        write_error(err, err_len, "out of memory");
        return NULL;
    }
    x264_param_t *p = &shim->param;
    if (x264_param_default_preset(p, config->preset, NULL) != 0) {
        write_error(err, err_len, "x264 does not know the preset");
        free(shim);
        return NULL;
    }
    p->i_log_level = X264_LOG_ERROR;
    p->b_aud = 1;
    p->b_annexb = 0;
    p->i_timebase_num = 1;
    p->i_timebase_den = 1000000000;
    char number[32];
    int failed = 0;
    if (config->asm_name) {
        failed |= parse(p, "asm", config->asm_name, err, err_len);
    }
    snprintf(number, sizeof number, "%d", config->keyint);
    failed |= parse(p, "keyint", number, err, err_len);
    snprintf(number, sizeof number, "%d", config->threads);
    failed |= parse(p, "threads", number, err, err_len);
    snprintf(number, sizeof number, "%d", config->sync_lookahead);
    failed |= parse(p, "sync-lookahead", number, err, err_len);
    failed |= parse(p, "annexb", "0", err, err_len);
    if (failed) {
        free(shim);
        return NULL;
    }

    p->i_bitdepth = 8;
    p->i_csp = X264_CSP_I420;
    p->b_vfr_input = 0;
    p->i_fps_num = (uint32_t)config->fps;
    p->i_fps_den = 1;
    p->i_keyint_max = config->keyint;
    p->i_width = config->width;
    p->i_height = config->height;
    p->vui.i_sar_width = 1;
    p->vui.i_sar_height = 1;
    p->vui.i_vidformat = 5; /* unspecified */
    p->vui.i_colorprim = 1; /* BT.709 */
    p->vui.i_transfer = 1;
    p->vui.i_colmatrix = 1;
    p->vui.b_fullrange = 0;
    p->vui.i_chroma_loc = 0;
    p->analyse.b_psnr = 0;
    p->rc.i_rc_method = X264_RC_CRF;
    p->rc.f_rf_constant = config->crf;
    p->rc.i_vbv_max_bitrate = config->vbv_max_kbps;
    p->rc.i_vbv_buffer_size = config->vbv_buffer_kbit;
    p->rc.b_stat_read = 0;
    p->rc.b_stat_write = 0;
    if (x264_param_apply_profile(p, "high") != 0) {
        write_error(err, err_len, "x264 cannot encode these settings in the High profile");
        free(shim);
        return NULL;
    }
    p->b_interlaced = 0;

    shim->encoder = x264_encoder_open(p);
    if (!shim->encoder) {
        write_error(err, err_len, "x264 could not open an encoder with these settings");
        free(shim);
        return NULL;
    }
    return shim;
}

/* The sequence and picture parameter sets, without their 4-byte length prefixes. */
int rs_x264_headers(rs_x264 *shim, const uint8_t **sps, int *sps_len, const uint8_t **pps,
                    int *pps_len) {
    x264_nal_t *nal = NULL;
    int count = 0;
    if (x264_encoder_headers(shim->encoder, &nal, &count) < 0) {
        return -1;
    }
    *sps = NULL;
    *pps = NULL;
    for (int i = 0; i < count; i++) {
        if (nal[i].i_payload < 5) {
            continue;
        }
        if (nal[i].i_type == NAL_SPS) {
            *sps = nal[i].p_payload + 4;
            *sps_len = nal[i].i_payload - 4;
        } else if (nal[i].i_type == NAL_PPS) {
            *pps = nal[i].p_payload + 4;
            *pps_len = nal[i].i_payload - 4;
        }
    }
    return (*sps && *pps) ? 0 : -1;
}

/* Hands x264 one I420 frame (or, with `planes` NULL, asks for a delayed one) and returns 1
 * with `out` set when an encoded frame came out, 0 when none did, and -1 on failure. With
 * `idr` set, x264 must make the frame an IDR frame. x264 copies the picture before this
 * returns. `out->data` stays valid until the next call. */
int rs_x264_encode(rs_x264 *shim, const uint8_t *const *planes, const int *strides,
                   int64_t pts, int idr, rs_x264_packet *out) {
    x264_picture_t in;
    x264_picture_t encoded;
    x264_nal_t *nal = NULL;
    int count = 0;
    x264_picture_t *input = NULL;
    if (planes) {
        x264_picture_init(&in);
        in.img.i_csp = X264_CSP_I420;
        in.img.i_plane = 3;
        for (int i = 0; i < 3; i++) {
            in.img.plane[i] = (uint8_t *)planes[i];
            in.img.i_stride[i] = strides[i];
        }
        in.i_type = idr ? X264_TYPE_IDR : X264_TYPE_AUTO;
        in.i_pts = pts;
        input = &in;
    }
    int size = x264_encoder_encode(shim->encoder, &nal, &count, input, &encoded);
    if (size < 0) {
        return -1;
    }
    if (count == 0 || size == 0) {
        return 0;
    }
    out->data = nal[0].p_payload;
    out->size = size;
    out->pts = encoded.i_pts;
    out->dts = encoded.i_dts;
    out->keyframe = encoded.b_keyframe;
    return 1;
}

int rs_x264_delayed(rs_x264 *shim) {
    return x264_encoder_delayed_frames(shim->encoder);
}

void rs_x264_close(rs_x264 *shim) {
    if (shim) {
        x264_encoder_close(shim->encoder);
        free(shim);
    }
}

/* The library's version, e.g. "0.164.3095 baee400": the build and the revision. */
const char *rs_x264_version(void) {
    return X264_POINTVER;
}

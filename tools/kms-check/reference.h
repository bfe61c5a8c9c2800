/*
 * The software reference: what a display engine should compose for a scene, rendered
 * with pixman from the same buffers the planes show, by the uAPI's rules (drm_blend.c):
 * planes in zpos order over a black CRTC background; the source rectangle reflected,
 * then rotated counter-clockwise, then scaled to the CRTC rectangle; "Pre-multiplied"
 * (the default) out = alpha * fg + (1 - alpha * fg.a) * bg, "Coverage" the same with
 * fg.rgb multiplied by fg.a first, "None" fg taken as opaque; then clipped to the mode.
 */
#ifndef KMS_CHECK_REFERENCE_H
#define KMS_CHECK_REFERENCE_H

#include <pixman.h>
#include "rig.h"

/* An a8r8g8b8 image of width x height (the caller unrefs it), or NULL (out of memory). */
pixman_image_t *reference_render(const struct rig_scene *scene, uint32_t width, uint32_t height);

#endif

#version 330 core
// The image over a checkerboard, so transparent regions read as transparent (straight alpha);
// then the object-removal mask as a tint, and the brush cursor as a two-tone ring that reads on
// any picture.
uniform sampler2D u_image;
// u_mode 0: an 8-bit RGBA photo. 1: one channel of stored samples (any type) mapped through the
// calibration and window (t = sample · u_scale + u_offset) to an entry of the 256-colour LUT.
// 2: colour samples windowed per channel. NaN shows as u_nan in either.
uniform int u_mode;
uniform sampler2D u_lut;
uniform float u_scale;
uniform float u_offset;
uniform bool u_step;           // a window of zero width: below lo → first entry, else last
uniform vec4 u_nan;
uniform bool u_mark_clipped;   // single channel: below the window u_below, above it u_above
uniform vec4 u_below;
uniform vec4 u_above;
uniform sampler2D u_mask;
uniform float u_checker_px;    // checker square size in screen pixels
uniform bool u_mask_visible;
uniform vec2 u_mask_uv_scale;  // image uv -> mask uv (the textures' capacities differ)
uniform vec4 u_tint;           // rgb, strength at full coverage
uniform bool u_brush_visible;
uniform vec3 u_brush;          // centre x, y (framebuffer pixels, top-left origin), radius
uniform float u_viewport_h;
// Colour management (photos only): the stored RGB looked up in the image-profile → display-
// profile table, a 3-D texture of N³ grid points; u_colour_map = ((N − 1) / N, 0.5 / N) puts
// value v on the texel centres.
uniform bool u_colour_managed;
uniform sampler3D u_colour_lut;
uniform vec2 u_colour_map;
// A matrix/TRC display: the table holds linear display RGB, encoded after the lookup by the
// display's tone curves (a 1-D table per channel, u_encode_map onto its texel centres).
uniform bool u_colour_encoded;
uniform sampler2D u_colour_encode;
uniform vec2 u_encode_map;

vec3 display_colour(vec3 stored) {
    vec3 c = clamp(texture(u_colour_lut, clamp(stored, 0.0, 1.0) * u_colour_map.x + u_colour_map.y).rgb,
                   0.0, 1.0);
    if (!u_colour_encoded) return c;
    vec3 t = c * u_encode_map.x + u_encode_map.y;
    return vec3(texture(u_colour_encode, vec2(t.r, 0.5)).r,
                texture(u_colour_encode, vec2(t.g, 0.5)).g,
                texture(u_colour_encode, vec2(t.b, 0.5)).b);
}
in vec2 v_uv;
in vec2 v_image_px;
out vec4 frag_color;

// The LUT index of a stored sample, as the CPU reference (render_display) computes it.
int lut_index(float sample) {
    float t = sample * u_scale + u_offset;
    if (u_step) return t >= 0.0 ? 255 : 0;
    return int(floor(clamp(t, 0.0, 1.0) * 255.0 + 0.5));
}

vec4 mapped(vec4 s) {
    if (u_mode == 1) {
        if (isnan(s.r)) return u_nan;
        if (u_mark_clipped) {
            float t = s.r * u_scale + u_offset;
            if (u_step ? false : t < 0.0) return u_below;
            if (u_step ? false : t > 1.0) return u_above;
        }
        return texelFetch(u_lut, ivec2(lut_index(s.r), 0), 0);
    }
    if (isnan(s.r) || isnan(s.g) || isnan(s.b)) return u_nan;
    vec3 rgb = vec3(lut_index(s.r), lut_index(s.g), lut_index(s.b)) / 255.0;
    return vec4(rgb, clamp(s.a, 0.0, 1.0));  // normalised by the texture format
}

void main() {
    vec4 c = texture(u_image, v_uv);
    if (u_mode != 0) c = mapped(c);
    else if (u_colour_managed)
        c.rgb = display_colour(c.rgb);
    vec2 cell = floor(gl_FragCoord.xy / u_checker_px);
    float light = mod(cell.x + cell.y, 2.0);
    vec3 checker = mix(vec3(0.40), vec3(0.60), light);
    vec3 color = mix(checker, c.rgb, c.a);
    if (u_mask_visible) {
        float coverage = texture(u_mask, v_uv * u_mask_uv_scale).r;
        color = mix(color, u_tint.rgb, coverage * u_tint.a);
    }
    if (u_brush_visible) {
        vec2 p = vec2(gl_FragCoord.x, u_viewport_h - gl_FragCoord.y);
        float d = distance(p, u_brush.xy) - u_brush.z;
        if (abs(d) < 0.75) color = vec3(1.0);
        else if (abs(d + 1.5) < 0.75) color = vec3(0.0);
    }
    frag_color = vec4(color, 1.0);
}

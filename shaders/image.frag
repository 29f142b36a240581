#version 330 core
// The image over a checkerboard, so transparent regions read as transparent (straight alpha);
// then the object-removal mask as a tint, and the brush cursor as a two-tone ring that reads on
// any picture.
uniform sampler2D u_image;
uniform sampler2D u_mask;
uniform float u_checker_px;    // checker square size in screen pixels
uniform bool u_mask_visible;
uniform vec2 u_mask_uv_scale;  // image uv -> mask uv (the textures' capacities differ)
uniform vec4 u_tint;           // rgb, strength at full coverage
uniform bool u_brush_visible;
uniform vec3 u_brush;          // centre x, y (framebuffer pixels, top-left origin), radius
uniform float u_viewport_h;
in vec2 v_uv;
in vec2 v_image_px;
out vec4 frag_color;

void main() {
    vec4 c = texture(u_image, v_uv);
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

#version 330 core
// Draws the image as one quad from four vertex IDs (no vertex buffer). u_rect is the image's
// rectangle in framebuffer pixels, top-left origin; u_viewport is the framebuffer size.
uniform vec4 u_rect;      // x0, y0, x1, y1
uniform vec2 u_viewport;  // width, height
uniform vec2 u_uv_max;    // used part of the (grow-only) texture
out vec2 v_uv;
out vec2 v_image_px;      // position in image pixels, for the checkerboard
uniform vec2 u_image_size;

void main() {
    vec2 corner = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1));
    vec2 px = mix(u_rect.xy, u_rect.zw, corner);
    vec2 ndc = vec2(px.x / u_viewport.x * 2.0 - 1.0, 1.0 - px.y / u_viewport.y * 2.0);
    v_uv = corner * u_uv_max;
    v_image_px = corner * u_image_size;
    gl_Position = vec4(ndc, 0.0, 1.0);
}

#version 330 core
// One screen-space quad (overlays: the histogram line, its band and handles). Corners are in
// framebuffer pixels, top-left origin, in triangle-strip order.
uniform vec2 u_corners[4];
uniform vec2 u_viewport;

void main() {
    vec2 px = u_corners[gl_VertexID];
    gl_Position = vec4(px.x / u_viewport.x * 2.0 - 1.0, 1.0 - px.y / u_viewport.y * 2.0, 0.0, 1.0);
}

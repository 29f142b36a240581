#version 330 core
// The image over a checkerboard, so transparent regions read as transparent. Straight alpha.
uniform sampler2D u_image;
uniform float u_checker_px;   // checker square size in screen pixels
in vec2 v_uv;
in vec2 v_image_px;
out vec4 frag_color;

void main() {
    vec4 c = texture(u_image, v_uv);
    vec2 cell = floor(gl_FragCoord.xy / u_checker_px);
    float light = mod(cell.x + cell.y, 2.0);
    vec3 checker = mix(vec3(0.40), vec3(0.60), light);
    frag_color = vec4(mix(checker, c.rgb, c.a), 1.0);
}

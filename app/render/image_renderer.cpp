#include <GL/glew.h>

#include <lacuna/render/image_renderer.hpp>

#include "renderer_impl.hpp"
#include "shaders_embedded.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace lacuna::render {
namespace {

// GLEW 2.2 built for GLX returns GLEW_ERROR_NO_GLX_DISPLAY (4) under EGL after it has loaded
// every core entry point; what matters is that the functions we call exist.
bool load_gl(std::string& error) {
    glewExperimental = GL_TRUE;
    const GLenum status = glewInit();
    if (status != GLEW_OK && status != 4) {
        error = std::string("GLEW could not load OpenGL: ") +
                reinterpret_cast<const char*>(glewGetErrorString(status));
        return false;
    }
    if (glGenVertexArrays == nullptr || glCreateShader == nullptr) {
        error = "OpenGL 3.3 entry points are missing (is a context current?)";
        return false;
    }
    return true;
}

GLuint compile(const GLenum type, const char* source, std::string& error) {
    const GLuint shader = glCreateShader(type);
    glShaderSource(shader, 1, &source, nullptr);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (ok != GL_TRUE) {
        char log[2048] = {};
        glGetShaderInfoLog(shader, sizeof log, nullptr, log);
        error = std::string("shader compile error: ") + log;
        glDeleteShader(shader);
        return 0;
    }
    return shader;
}

GLuint link(const char* vert_src, const char* frag_src, std::string& error) {
    const GLuint vert = compile(GL_VERTEX_SHADER, vert_src, error);
    if (vert == 0) return 0;
    const GLuint frag = compile(GL_FRAGMENT_SHADER, frag_src, error);
    if (frag == 0) {
        glDeleteShader(vert);
        return 0;
    }
    const GLuint program = glCreateProgram();
    glAttachShader(program, vert);
    glAttachShader(program, frag);
    glLinkProgram(program);
    glDeleteShader(vert);
    glDeleteShader(frag);
    GLint ok = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (ok != GL_TRUE) {
        char log[2048] = {};
        glGetProgramInfoLog(program, sizeof log, nullptr, log);
        error = std::string("shader link error: ") + log;
        glDeleteProgram(program);
        return 0;
    }
    return program;
}

}  // namespace

ImageRenderer::ImageRenderer() : impl_(std::make_unique<Impl>()) {}

ImageRenderer::~ImageRenderer() {
    if (impl_ && impl_->ready) impl_->release();
}

bool ImageRenderer::initialize(std::string& error) {
    if (impl_->ready) return true;
    if (!load_gl(error)) return false;
    impl_->program = link(shaders::kImageVert, shaders::kImageFrag, error);
    if (impl_->program == 0) return false;
    impl_->overlay_program = link(shaders::kOverlayVert, shaders::kOverlayFrag, error);
    if (impl_->overlay_program == 0) return false;
    glGenVertexArrays(1, &impl_->vao);
    for (GLuint* texture : {&impl_->texture, &impl_->mask_texture}) {
        glGenTextures(1, texture);
        glBindTexture(GL_TEXTURE_2D, *texture);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    }
    glBindTexture(GL_TEXTURE_2D, 0);
    impl_->ready = true;
    return true;
}

bool ImageRenderer::initialized() const {
    return impl_->ready;
}
int ImageRenderer::image_width() const {
    return impl_->image_w;
}
int ImageRenderer::image_height() const {
    return impl_->image_h;
}
void ImageRenderer::set_background(const Rgb color) {
    impl_->background = color;
}

void ImageRenderer::set_image(const ImageView<const Rgba8> image) {
    if (!impl_->ready || image.empty()) return;
    impl_->unmap_textures();
    impl_->reserve_texture(image.width, image.height);
    glBindTexture(GL_TEXTURE_2D, impl_->texture);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, static_cast<GLint>(image.pitch / sizeof(Rgba8)));
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, image.width, image.height, GL_RGBA, GL_UNSIGNED_BYTE,
                    image.data);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glBindTexture(GL_TEXTURE_2D, 0);
    impl_->image_w = image.width;
    impl_->image_h = image.height;
    impl_->last_was_interop = false;
}

void ImageRenderer::set_interop_profiling(const bool on) {
    impl_->profiling = on;
    impl_->profile = {};
}

ImageRenderer::InteropProfile ImageRenderer::interop_profile() const {
    return impl_->profile;
}

void ImageRenderer::set_mask(const ImageView<const std::uint8_t> mask) {
    Impl& impl = *impl_;
    if (!impl.ready) return;
    impl.unmap_textures();
    impl.mask_visible = !mask.empty();
    if (mask.empty()) return;
    impl.reserve_mask_texture(mask.width, mask.height);
    glBindTexture(GL_TEXTURE_2D, impl.mask_texture);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, static_cast<GLint>(mask.pitch));
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, mask.width, mask.height, GL_RED, GL_UNSIGNED_BYTE,
                    mask.data);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glBindTexture(GL_TEXTURE_2D, 0);
}

void ImageRenderer::set_mask_tint(const Rgb color, const float strength) {
    impl_->tint[0] = color.r;
    impl_->tint[1] = color.g;
    impl_->tint[2] = color.b;
    impl_->tint[3] = strength;
}

void ImageRenderer::set_line_overlay(const LineOverlay& overlay) {
    impl_->line = overlay;
}

namespace {

/// Draws the quad around segment a–b, `half` pixels either side (and `extend` beyond the ends).
void draw_segment_quad(const GLuint program, const PointF a, const PointF b, const double half,
                       const double extend, const std::array<float, 4>& color) {
    double dx = b.x - a.x, dy = b.y - a.y;
    const double length = std::hypot(dx, dy);
    if (length < 1e-9) {
        dx = 1;
        dy = 0;
    } else {
        dx /= length;
        dy /= length;
    }
    const double nx = -dy * half, ny = dx * half;
    const double ex = dx * extend, ey = dy * extend;
    const float corners[8] = {float(a.x - ex + nx), float(a.y - ey + ny), float(b.x + ex + nx),
                              float(b.y + ey + ny), float(a.x - ex - nx), float(a.y - ey - ny),
                              float(b.x + ex - nx), float(b.y + ey - ny)};
    glUniform2fv(glGetUniformLocation(program, "u_corners"), 4, corners);
    glUniform4fv(glGetUniformLocation(program, "u_color"), 1, color.data());
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
}

/// A filled square of side 2·half centred on p.
void draw_square(const GLuint program, const PointF p, const double half,
                 const std::array<float, 4>& color) {
    draw_segment_quad(program, {p.x - half, p.y}, {p.x + half, p.y}, half, 0, color);
}

}  // namespace

void ImageRenderer::draw_line_overlay(const int width, const int height) const {
    const LineOverlay& line = impl_->line;
    if (!line.visible) return;
    const GLuint program = impl_->overlay_program;
    glUseProgram(program);
    glUniform2f(glGetUniformLocation(program, "u_viewport"), float(width), float(height));
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glBindVertexArray(impl_->vao);
    const std::array<float, 4> black{0, 0, 0, 1}, yellow{1.0f, 0.85f, 0.1f, 1};
    if (line.band_half_width > 0.5)
        draw_segment_quad(program, line.from, line.to, line.band_half_width, 0,
                          {1.0f, 0.85f, 0.1f, 0.22f});
    draw_segment_quad(program, line.from, line.to, 1.5, 0, black);
    draw_segment_quad(program, line.from, line.to, 0.75, 0, yellow);
    for (const PointF end : {line.from, line.to}) {
        draw_square(program, end, 5, black);
        draw_square(program, end, 3.5, yellow);
    }
    if (line.marker_visible) {
        const PointF m{line.from.x + (line.to.x - line.from.x) * line.marker_t,
                       line.from.y + (line.to.y - line.from.y) * line.marker_t};
        draw_square(program, m, 4.5, black);
        draw_square(program, m, 3, {0.2f, 0.9f, 1.0f, 1});
    }
    glBindVertexArray(0);
    glDisable(GL_BLEND);
    glUseProgram(0);
}

void ImageRenderer::set_brush(const bool visible, const PointF centre, const double radius) {
    impl_->brush_visible = visible;
    impl_->brush[0] = float(centre.x);
    impl_->brush[1] = float(centre.y);
    impl_->brush[2] = float(radius);
}

bool ImageRenderer::last_image_was_interop() const {
    return impl_->last_was_interop;
}

void ImageRenderer::render(const unsigned fbo, const int width, const int height,
                           const ViewTransform& view) const {
    if (!impl_->ready) return;
    impl_->unmap_textures();
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glViewport(0, 0, width, height);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_BLEND);
    glClearColor(impl_->background.r, impl_->background.g, impl_->background.b, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    if (impl_->image_w == 0) return;

    const PointF top_left = view.to_screen({0, 0});
    const PointF bottom_right = view.to_screen({double(impl_->image_w), double(impl_->image_h)});
    glUseProgram(impl_->program);
    glUniform4f(glGetUniformLocation(impl_->program, "u_rect"), float(top_left.x),
                float(top_left.y), float(bottom_right.x), float(bottom_right.y));
    glUniform2f(glGetUniformLocation(impl_->program, "u_viewport"), float(width), float(height));
    glUniform2f(glGetUniformLocation(impl_->program, "u_uv_max"),
                float(impl_->image_w) / float(impl_->capacity_w),
                float(impl_->image_h) / float(impl_->capacity_h));
    glUniform2f(glGetUniformLocation(impl_->program, "u_image_size"), float(impl_->image_w),
                float(impl_->image_h));
    glUniform1f(glGetUniformLocation(impl_->program, "u_checker_px"), 8.0f);
    glUniform1i(glGetUniformLocation(impl_->program, "u_image"), 0);
    glUniform1i(glGetUniformLocation(impl_->program, "u_mask"), 1);
    glUniform1i(glGetUniformLocation(impl_->program, "u_mask_visible"), impl_->mask_visible);
    const float mask_scale_x =
        impl_->mask_capacity_w > 0 ? float(impl_->capacity_w) / float(impl_->mask_capacity_w) : 1;
    const float mask_scale_y =
        impl_->mask_capacity_h > 0 ? float(impl_->capacity_h) / float(impl_->mask_capacity_h) : 1;
    glUniform2f(glGetUniformLocation(impl_->program, "u_mask_uv_scale"), mask_scale_x,
                mask_scale_y);
    glUniform4fv(glGetUniformLocation(impl_->program, "u_tint"), 1, impl_->tint);
    glUniform1i(glGetUniformLocation(impl_->program, "u_brush_visible"), impl_->brush_visible);
    glUniform3fv(glGetUniformLocation(impl_->program, "u_brush"), 1, impl_->brush);
    glUniform1f(glGetUniformLocation(impl_->program, "u_viewport_h"), float(height));
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, impl_->mask_texture);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, impl_->texture);
    // Magnified pixels stay crisp squares (an editor shows pixels); reduced views are smoothed.
    const GLint filter = view.zoom >= 1.0 ? GL_NEAREST : GL_LINEAR;
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
    glBindVertexArray(impl_->vao);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glBindVertexArray(0);
    glBindTexture(GL_TEXTURE_2D, 0);
    glUseProgram(0);
    draw_line_overlay(width, height);
}

std::string ImageRenderer::gl_description() const {
    const auto text = [](const GLenum name) {
        const auto* s = reinterpret_cast<const char*>(glGetString(name));
        return std::string(s != nullptr ? s : "?");
    };
    return text(GL_VENDOR) + " / " + text(GL_RENDERER) + " / " + text(GL_VERSION);
}

void ImageRenderer::release() {
    if (impl_->ready) impl_->release();
}

}  // namespace lacuna::render

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
    impl_->showing_samples = false;
    impl_->image_sample_channels = 0;
    impl_->last_was_interop = false;
}

namespace {

struct GlSampleFormat {
    GLenum internal = GL_RGBA8;
    GLenum layout = GL_RGBA;
    GLenum type = GL_UNSIGNED_BYTE;
    double unit = 255.0;  // the stored sample a normalised texture value of 1 stands for
};

GlSampleFormat gl_format(const PixelFormat format) {
    const int c = format.channels == 1 ? 0 : format.channels == 3 ? 1 : 2;
    const GLenum layouts[3] = {GL_RED, GL_RGB, GL_RGBA};
    switch (format.sample) {
        case SampleType::U8: {
            const GLenum f[3] = {GL_R8, GL_RGB8, GL_RGBA8};
            return {f[c], layouts[c], GL_UNSIGNED_BYTE, 255.0};
        }
        case SampleType::U16: {
            const GLenum f[3] = {GL_R16, GL_RGB16, GL_RGBA16};
            return {f[c], layouts[c], GL_UNSIGNED_SHORT, 65535.0};
        }
        case SampleType::I16: {
            // Signed normalised: -32768 reads as -1 like -32767 (GL's rule); the display
            // differs by at most one LUT step there, and values shown as numbers come from the
            // stored samples.
            const GLenum f[3] = {GL_R16_SNORM, GL_RGB16_SNORM, GL_RGBA16_SNORM};
            return {f[c], layouts[c], GL_SHORT, 32767.0};
        }
        case SampleType::F32: {
            const GLenum f[3] = {GL_R32F, GL_RGB32F, GL_RGBA32F};
            return {f[c], layouts[c], GL_FLOAT, 1.0};
        }
    }
    return {};
}

}  // namespace

void ImageRenderer::Impl::reserve_samples_texture(const int width, const int height,
                                                  const PixelFormat format) {
    if (samples_texture == 0) {
        glGenTextures(1, &samples_texture);
        glBindTexture(GL_TEXTURE_2D, samples_texture);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    }
    if (width <= samples_capacity_w && height <= samples_capacity_h && format == samples_format)
        return;
    samples_registration.reset();
    if (!(format == samples_format)) samples_capacity_w = samples_capacity_h = 0;
    samples_capacity_w = std::max(width, samples_capacity_w);
    samples_capacity_h = std::max(height, samples_capacity_h);
    samples_format = format;
    const GlSampleFormat gl = gl_format(format);
    glBindTexture(GL_TEXTURE_2D, samples_texture);
    glTexImage2D(GL_TEXTURE_2D, 0, static_cast<GLint>(gl.internal), samples_capacity_w,
                 samples_capacity_h, 0, gl.layout, gl.type, nullptr);
    glBindTexture(GL_TEXTURE_2D, 0);
}

void ImageRenderer::set_samples(const NativeImage& samples) {
    Impl& impl = *impl_;
    if (!impl.ready || samples.empty()) return;
    impl.unmap_textures();
    impl.reserve_samples_texture(samples.width(), samples.height(), samples.format());
    const GlSampleFormat gl = gl_format(samples.format());
    const std::size_t bpp = samples.format().bytes_per_pixel();
    glBindTexture(GL_TEXTURE_2D, impl.samples_texture);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    if (samples.pitch() % bpp == 0) {
        glPixelStorei(GL_UNPACK_ROW_LENGTH, static_cast<GLint>(samples.pitch() / bpp));
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, samples.width(), samples.height(), gl.layout,
                        gl.type, samples.row(0));
        glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    } else {
        // The row pitch is not a whole number of pixels (3-channel 16-bit rows): row by row.
        for (int y = 0; y < samples.height(); ++y)
            glTexSubImage2D(GL_TEXTURE_2D, 0, 0, y, samples.width(), 1, gl.layout, gl.type,
                            samples.row(y));
    }
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glBindTexture(GL_TEXTURE_2D, 0);
    impl.image_w = samples.width();
    impl.image_h = samples.height();
    impl.showing_samples = true;
    impl.last_was_interop = false;
}

void ImageRenderer::Impl::use_sample_mapping(const PixelFormat format) {
    if (lut_texture == 0) {
        glGenTextures(1, &lut_texture);
        glBindTexture(GL_TEXTURE_2D, lut_texture);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    }
    if (lut_uploaded != static_cast<int>(mapping.lut)) {
        glBindTexture(GL_TEXTURE_2D, lut_texture);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 256, 1, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                     lut_table(mapping.lut).data());
        glBindTexture(GL_TEXTURE_2D, 0);
        lut_uploaded = static_cast<int>(mapping.lut);
    }
    // t = (slope · stored + intercept − lo) / (hi − lo), with stored = texture value · unit,
    // folded into one multiply-add per fragment. A window of zero width splits at lo.
    const double unit = gl_format(format).unit;
    const double width = mapping.window.hi - mapping.window.lo;
    const bool step = !(width > 0);
    const double w = step ? 1.0 : width;
    const Calibration& cal = mapping.calibration;
    glUniform1f(glGetUniformLocation(program, "u_scale"), float(cal.slope * unit / w));
    glUniform1f(glGetUniformLocation(program, "u_offset"),
                float((cal.intercept - mapping.window.lo) / w));
    glUniform1i(glGetUniformLocation(program, "u_step"), step);
    glUniform1i(glGetUniformLocation(program, "u_mark_clipped"), mapping.mark_clipped);
    glUniform4f(glGetUniformLocation(program, "u_below"), kBelowColour.r / 255.0f,
                kBelowColour.g / 255.0f, kBelowColour.b / 255.0f, 1.0f);
    glUniform4f(glGetUniformLocation(program, "u_above"), kAboveColour.r / 255.0f,
                kAboveColour.g / 255.0f, kAboveColour.b / 255.0f, 1.0f);
    // The clipping test compares the calibrated value with the window, in t: t < 0 or t > 1.
    glUniform4f(glGetUniformLocation(program, "u_nan"), kNanColour.r / 255.0f,
                kNanColour.g / 255.0f, kNanColour.b / 255.0f, 1.0f);
}

void ImageRenderer::set_sample_mapping(const SampleMapping& mapping) {
    impl_->mapping = mapping;
}

void ImageRenderer::set_image_as_samples(const int channels) {
    impl_->image_sample_channels = channels;
}

bool ImageRenderer::showing_samples() const {
    return impl_->showing_samples;
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
    // Colour blends; the framebuffer keeps alpha 1. (A translucent alpha would make Qt compose
    // the widget over the window with premultiplied alpha: the band came out green or checkered.)
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
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

void ImageRenderer::set_display_lut(const DisplayLut* lut) {
    Impl& impl = *impl_;
    if (!impl.ready) return;
    if (lut == nullptr || lut->empty()) {
        impl.colour_size = 0;
        return;
    }
    if (impl.colour_texture == 0) glGenTextures(1, &impl.colour_texture);
    glBindTexture(GL_TEXTURE_3D, impl.colour_texture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexImage3D(GL_TEXTURE_3D, 0, GL_RGB32F, lut->size, lut->size, lut->size, 0, GL_RGB, GL_FLOAT,
                 lut->rgb.data());
    // Trilinear between the grid points; the shader keeps coordinates on the points' centres.
    glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    for (const GLenum wrap : {GL_TEXTURE_WRAP_S, GL_TEXTURE_WRAP_T, GL_TEXTURE_WRAP_R})
        glTexParameteri(GL_TEXTURE_3D, wrap, GL_CLAMP_TO_EDGE);
    glBindTexture(GL_TEXTURE_3D, 0);
    impl.colour_size = lut->size;
    // The display's encoding: a 1-D table (a row texture), or none (identity).
    impl.colour_encoded = !lut->encode.empty();
    if (impl.colour_encoded) {
        if (impl.encode_texture == 0) glGenTextures(1, &impl.encode_texture);
        glBindTexture(GL_TEXTURE_2D, impl.encode_texture);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB32F, DisplayLut::kEncodeSize, 1, 0, GL_RGB, GL_FLOAT,
                     lut->encode.data());
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
        glBindTexture(GL_TEXTURE_2D, 0);
    }
}

bool ImageRenderer::colour_managed() const {
    return impl_->colour_size > 0;
}

bool ImageRenderer::last_image_was_interop() const {
    return impl_->last_was_interop;
}

ImageRenderer::TextureStats ImageRenderer::texture_stats() const {
    return {impl_->capacity_w, impl_->capacity_h, impl_->texture_allocations,
            impl_->texture_registrations};
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
    const bool samples = impl_->showing_samples;
    const int texture_w = samples ? impl_->samples_capacity_w : impl_->capacity_w;
    const int texture_h = samples ? impl_->samples_capacity_h : impl_->capacity_h;
    glUniform2f(glGetUniformLocation(impl_->program, "u_uv_max"),
                float(impl_->image_w) / float(texture_w), float(impl_->image_h) / float(texture_h));
    // Mode 1: one channel through the LUT; 2: colour windowed; 0: a photo as it is.
    int mode = 0;
    if (samples) {
        impl_->use_sample_mapping(impl_->samples_format);
        mode = impl_->samples_format.channels == 1 ? 1 : 2;
    } else if (impl_->image_sample_channels > 0) {
        impl_->use_sample_mapping({SampleType::U8, impl_->image_sample_channels});
        mode = impl_->image_sample_channels == 1 ? 1 : 2;
    }
    glUniform1i(glGetUniformLocation(impl_->program, "u_mode"), mode);
    glUniform1i(glGetUniformLocation(impl_->program, "u_lut"), 2);
    glUniform2f(glGetUniformLocation(impl_->program, "u_image_size"), float(impl_->image_w),
                float(impl_->image_h));
    glUniform1f(glGetUniformLocation(impl_->program, "u_checker_px"), 8.0f);
    glUniform1i(glGetUniformLocation(impl_->program, "u_image"), 0);
    glUniform1i(glGetUniformLocation(impl_->program, "u_mask"), 1);
    glUniform1i(glGetUniformLocation(impl_->program, "u_mask_visible"), impl_->mask_visible);
    const float mask_scale_x =
        impl_->mask_capacity_w > 0 ? float(texture_w) / float(impl_->mask_capacity_w) : 1;
    const float mask_scale_y =
        impl_->mask_capacity_h > 0 ? float(texture_h) / float(impl_->mask_capacity_h) : 1;
    glUniform2f(glGetUniformLocation(impl_->program, "u_mask_uv_scale"), mask_scale_x,
                mask_scale_y);
    glUniform4fv(glGetUniformLocation(impl_->program, "u_tint"), 1, impl_->tint);
    glUniform1i(glGetUniformLocation(impl_->program, "u_brush_visible"), impl_->brush_visible);
    glUniform3fv(glGetUniformLocation(impl_->program, "u_brush"), 1, impl_->brush);
    glUniform1f(glGetUniformLocation(impl_->program, "u_viewport_h"), float(height));
    const bool colour = impl_->colour_size > 0 && mode == 0;
    glUniform1i(glGetUniformLocation(impl_->program, "u_colour_managed"), colour);
    glUniform1i(glGetUniformLocation(impl_->program, "u_colour_lut"), 3);
    if (colour) {
        // Grid point i sits at texel centre (i + 0.5) / N.
        const float n = float(impl_->colour_size);
        glUniform2f(glGetUniformLocation(impl_->program, "u_colour_map"), (n - 1.0f) / n, 0.5f / n);
        glActiveTexture(GL_TEXTURE3);
        glBindTexture(GL_TEXTURE_3D, impl_->colour_texture);
        const float e = float(DisplayLut::kEncodeSize);
        glUniform1i(glGetUniformLocation(impl_->program, "u_colour_encoded"),
                    impl_->colour_encoded);
        glUniform2f(glGetUniformLocation(impl_->program, "u_encode_map"), (e - 1.0f) / e, 0.5f / e);
        if (impl_->colour_encoded) {
            glActiveTexture(GL_TEXTURE4);
            glBindTexture(GL_TEXTURE_2D, impl_->encode_texture);
        }
    }
    glUniform1i(glGetUniformLocation(impl_->program, "u_colour_encode"), 4);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, impl_->mask_texture);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glActiveTexture(GL_TEXTURE2);
    glBindTexture(GL_TEXTURE_2D, impl_->lut_texture);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, samples ? impl_->samples_texture : impl_->texture);
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

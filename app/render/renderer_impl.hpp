// Internal: the renderer's GL state, shared by the GL code and the CUDA interop code (which is
// compiled only in CUDA builds). Includes GLEW, so Qt OpenGL headers must never include this.
#pragma once

#include <GL/glew.h>

#include <lacuna/render/image_renderer.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>

struct cudaGraphicsResource;

namespace lacuna::render {

/// A GL buffer registered with CUDA: registered on construction, unregistered on destruction
/// (defined by the interop code; CPU-only builds never create one).
struct InteropRegistration {
    cudaGraphicsResource* resource = nullptr;
    InteropRegistration() = default;
    ~InteropRegistration();
    InteropRegistration(const InteropRegistration&) = delete;
    InteropRegistration& operator=(const InteropRegistration&) = delete;
};

struct ImageRenderer::Impl {
    bool ready = false;
    GLuint program = 0;
    GLuint vao = 0;
    GLuint texture = 0;
    int capacity_w = 0;  // allocated texture size; grows, never shrinks
    int capacity_h = 0;
    int image_w = 0;
    int image_h = 0;
    Rgb background;
    // The interop path: a pixel-unpack buffer the image is written into by a CUDA kernel, then
    // copied into the texture by GL. Grow-only; registered with CUDA once per allocation.
    GLuint pixel_buffer = 0;
    std::size_t pixel_buffer_bytes = 0;
    std::unique_ptr<InteropRegistration> registration;
    bool last_was_interop = false;
    // The mask's interop buffer, the same way (the device document's masks).
    GLuint mask_pixel_buffer = 0;
    std::size_t mask_pixel_buffer_bytes = 0;
    std::unique_ptr<InteropRegistration> mask_registration;
    // The object-removal mask (coverage 0..255) drawn as a tint; grow-only like the image.
    GLuint mask_texture = 0;
    int mask_capacity_w = 0;
    int mask_capacity_h = 0;
    bool mask_visible = false;
    float tint[4] = {1.0f, 0.15f, 0.35f, 0.55f};
    GLuint overlay_program = 0;
    LineOverlay line;
    bool brush_visible = false;
    float brush[3] = {0, 0, 0};

    /// Makes the texture at least width × height (grow-only).
    void reserve_texture(const int width, const int height) {
        if (width <= capacity_w && height <= capacity_h) return;
        capacity_w = std::max(width, capacity_w);
        capacity_h = std::max(height, capacity_h);
        glBindTexture(GL_TEXTURE_2D, texture);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, capacity_w, capacity_h, 0, GL_RGBA,
                     GL_UNSIGNED_BYTE, nullptr);
        glBindTexture(GL_TEXTURE_2D, 0);
    }

    /// Makes the mask texture at least width × height (grow-only).
    void reserve_mask_texture(const int width, const int height) {
        if (width <= mask_capacity_w && height <= mask_capacity_h) return;
        mask_capacity_w = std::max(width, mask_capacity_w);
        mask_capacity_h = std::max(height, mask_capacity_h);
        glBindTexture(GL_TEXTURE_2D, mask_texture);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, mask_capacity_w, mask_capacity_h, 0, GL_RED,
                     GL_UNSIGNED_BYTE, nullptr);
        glBindTexture(GL_TEXTURE_2D, 0);
    }

    void release() {
        registration.reset();  // unregister from CUDA before the buffer goes away
        mask_registration.reset();
        if (pixel_buffer != 0) glDeleteBuffers(1, &pixel_buffer);
        if (mask_pixel_buffer != 0) glDeleteBuffers(1, &mask_pixel_buffer);
        pixel_buffer = mask_pixel_buffer = 0;
        pixel_buffer_bytes = mask_pixel_buffer_bytes = 0;
        if (program != 0) glDeleteProgram(std::exchange(program, 0));
        if (overlay_program != 0) glDeleteProgram(std::exchange(overlay_program, 0));
        if (vao != 0) glDeleteVertexArrays(1, &vao);
        if (texture != 0) glDeleteTextures(1, &texture);
        if (mask_texture != 0) glDeleteTextures(1, &mask_texture);
        mask_texture = 0;
        mask_capacity_w = mask_capacity_h = 0;
        mask_visible = false;
        vao = texture = 0;
        capacity_w = capacity_h = image_w = image_h = 0;
        ready = false;
    }
};

}  // namespace lacuna::render

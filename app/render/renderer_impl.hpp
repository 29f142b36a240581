// Internal: the renderer's GL state, shared by the GL code and the CUDA interop code (which is
// compiled only in CUDA builds). Includes GLEW, so Qt OpenGL headers must never include this.
#pragma once

#include <GL/glew.h>

#include <lacuna/render/image_renderer.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>

struct cudaGraphicsResource;
struct CUevent_st;

namespace lacuna::render {

/// A GL buffer registered with CUDA: registered on construction, unregistered on destruction
/// (defined by the interop code; CPU-only builds never create one).
struct InteropRegistration {
    cudaGraphicsResource* resource = nullptr;
    /// Mapped ahead of the next present (map_ahead), on the renderer's interop stream; GL must
    /// not touch the texture until it is unmapped.
    bool mapped = false;
    DeviceStream stream = nullptr;  ///< the renderer's interop stream (it outlives this)
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
    int texture_allocations = 0;    // display texture (re)allocations, for tests
    int texture_registrations = 0;  // its CUDA registrations, for tests
    int capacity_w = 0;             // allocated texture size; grows, never shrinks
    int capacity_h = 0;
    int image_w = 0;
    int image_h = 0;
    Rgb background;
    // The interop path: the display textures themselves are registered with CUDA (once per
    // allocation; the textures only grow), and CUDA copies the device image into them — no
    // pixel buffer, no GL-side copy.
    // The renderer's own stream for interop (maps, copies, unmaps), ordered against the image's
    // stream by two events; declared before the registrations so it outlives them.
    std::unique_ptr<OwnedStream> interop_stream;
    CUevent_st* source_ready = nullptr;
    CUevent_st* copy_done = nullptr;
    std::unique_ptr<InteropRegistration> registration;
    std::unique_ptr<InteropRegistration> mask_registration;
    bool last_was_interop = false;
    /// Unmaps textures mapped ahead, so GL may use them (defined by the interop code).
    void unmap_textures();
    /// Unregisters the textures and frees the interop stream and events.
    void release_interop();
    /// The interop stream and events, made on first use (CUDA builds only).
    bool ensure_interop_stream(std::string& error);
    /// Copies a pitched device image into the top-left corner of a registered texture.
    bool copy_into_texture(std::unique_ptr<InteropRegistration>& registration, unsigned texture,
                           const void* device_data, std::size_t pitch, std::size_t row_bytes,
                           int height, DeviceStream image_stream, std::string& error);
    bool profiling = false;
    ImageRenderer::InteropProfile profile;
    // The object-removal mask (coverage 0..255) drawn as a tint; grow-only like the image.
    GLuint mask_texture = 0;
    int mask_capacity_w = 0;
    int mask_capacity_h = 0;
    bool mask_visible = false;
    float tint[4] = {1.0f, 0.15f, 0.35f, 0.55f};
    // A measurement image's samples in their own type, and the LUT they are shown through.
    GLuint samples_texture = 0;
    int samples_capacity_w = 0;
    int samples_capacity_h = 0;
    PixelFormat samples_format{};
    bool showing_samples = false;
    int image_sample_channels = 0;  // set_image_as_samples
    std::unique_ptr<InteropRegistration> samples_registration;
    GLuint lut_texture = 0;
    int lut_uploaded = -1;      // the Lut in lut_texture
    GLuint colour_texture = 0;  // the display's 3-D colour table (set_display_lut); 0: none
    int colour_size = 0;
    GLuint encode_texture = 0;  // the display's tone curves after the 3-D table
    bool colour_encoded = false;
    ImageRenderer::SampleMapping mapping;
    GLuint overlay_program = 0;
    LineOverlay line;
    bool brush_visible = false;
    float brush[3] = {0, 0, 0};

    /// Makes the texture at least width × height (grow-only). A texture that grows is a new
    /// allocation: its CUDA registration goes first.
    void reserve_texture(const int width, const int height) {
        if (width <= capacity_w && height <= capacity_h) return;
        registration.reset();
        capacity_w = std::max(width, capacity_w);
        capacity_h = std::max(height, capacity_h);
        ++texture_allocations;
        glBindTexture(GL_TEXTURE_2D, texture);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, capacity_w, capacity_h, 0, GL_RGBA,
                     GL_UNSIGNED_BYTE, nullptr);
        glBindTexture(GL_TEXTURE_2D, 0);
    }

    /// Makes the mask texture at least width × height (grow-only).
    void reserve_mask_texture(const int width, const int height) {
        if (width <= mask_capacity_w && height <= mask_capacity_h) return;
        mask_registration.reset();
        mask_capacity_w = std::max(width, mask_capacity_w);
        mask_capacity_h = std::max(height, mask_capacity_h);
        glBindTexture(GL_TEXTURE_2D, mask_texture);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, mask_capacity_w, mask_capacity_h, 0, GL_RED,
                     GL_UNSIGNED_BYTE, nullptr);
        glBindTexture(GL_TEXTURE_2D, 0);
    }

    /// Makes the samples texture at least width × height of `format` (grow-only; a new format
    /// is a new allocation).
    void reserve_samples_texture(const int width, const int height, const PixelFormat format);

    /// Uploads the LUT if it changed and sets the mapping's uniforms on `program` (bound), for
    /// samples of `format` in the bound texture.
    void use_sample_mapping(PixelFormat format);

    void release() {
        release_interop();  // unregister from CUDA before the textures go away
        for (GLuint* t : {&samples_texture, &lut_texture, &colour_texture, &encode_texture})
            if (*t != 0) glDeleteTextures(1, t);
        samples_texture = lut_texture = colour_texture = encode_texture = 0;
        colour_encoded = false;
        colour_size = 0;
        samples_capacity_w = samples_capacity_h = 0;
        showing_samples = false;
        lut_uploaded = -1;
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

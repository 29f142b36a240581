// An RGBA8 framebuffer object (headless tests, the editor benchmark), read back top row first.
// Includes GLEW: only for code that already talks GL (never with Qt OpenGL headers).
#pragma once

#include <GL/glew.h>

#include <lacuna/core/image.hpp>

#include <algorithm>

namespace lacuna::render {

// An RGBA8 framebuffer object of a given size; deleted with the context current.
class Framebuffer {
  public:
    Framebuffer(const int w, const int h) : w_(w), h_(h) {
        glGenFramebuffers(1, &fbo_);
        glGenRenderbuffers(1, &rbo_);
        glBindRenderbuffer(GL_RENDERBUFFER, rbo_);
        glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
        glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rbo_);
    }
    ~Framebuffer() {
        glDeleteFramebuffers(1, &fbo_);
        glDeleteRenderbuffers(1, &rbo_);
    }
    Framebuffer(const Framebuffer&) = delete;
    Framebuffer& operator=(const Framebuffer&) = delete;
    [[nodiscard]] bool complete() const {
        glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
        return glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
    }
    [[nodiscard]] GLuint id() const { return fbo_; }
    [[nodiscard]] int width() const { return w_; }
    [[nodiscard]] int height() const { return h_; }
    /// Pixels with row 0 at the top, as the image has them.
    [[nodiscard]] ImageRgba8 read() const {
        ImageRgba8 out(w_, h_, RowPitch{std::size_t(w_) * 4});
        glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
        glPixelStorei(GL_PACK_ALIGNMENT, 4);
        ImageRgba8 bottom_up(w_, h_, RowPitch{std::size_t(w_) * 4});
        glReadPixels(0, 0, w_, h_, GL_RGBA, GL_UNSIGNED_BYTE, bottom_up.row(0));
        for (int y = 0; y < h_; ++y) std::copy_n(bottom_up.row(h_ - 1 - y), w_, out.row(y));
        return out;
    }

  private:
    int w_, h_;
    GLuint fbo_ = 0, rbo_ = 0;
};

}  // namespace lacuna::render

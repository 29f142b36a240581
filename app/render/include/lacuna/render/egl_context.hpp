// A headless OpenGL context through EGL (no X, no Qt): Mesa llvmpipe on CI, NVIDIA on the GPU
// machine. RAII: the context, surface and display are released in the destructor.
#pragma once

#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <string>

namespace lacuna::render {

class EglContext {
  public:
    EglContext() { create(); }
    ~EglContext() {
        if (display_ != EGL_NO_DISPLAY) {
            eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
            if (context_ != EGL_NO_CONTEXT) eglDestroyContext(display_, context_);
            if (surface_ != EGL_NO_SURFACE) eglDestroySurface(display_, surface_);
            eglTerminate(display_);
        }
    }
    EglContext(const EglContext&) = delete;
    EglContext& operator=(const EglContext&) = delete;

    [[nodiscard]] bool ok() const { return error_.empty(); }
    [[nodiscard]] const std::string& error() const { return error_; }

  private:
    EGLDisplay device_display() {
        // Prefer a device display (works without any window system); fall back to the default.
        auto query =
            reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
        auto platform = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
            eglGetProcAddress("eglGetPlatformDisplayEXT"));
        if (query != nullptr && platform != nullptr) {
            EGLDeviceEXT devices[8];
            EGLint count = 0;
            if (query(8, devices, &count) == EGL_TRUE) {
                for (EGLint i = 0; i < count; ++i) {
                    EGLDisplay d = platform(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
                    EGLint major = 0, minor = 0;
                    if (d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor) == EGL_TRUE)
                        return d;
                }
            }
        }
        EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY);
        EGLint major = 0, minor = 0;
        if (d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor) == EGL_TRUE) return d;
        return EGL_NO_DISPLAY;
    }

    void create() {
        display_ = device_display();
        if (display_ == EGL_NO_DISPLAY) {
            error_ = "no EGL display";
            return;
        }
        const EGLint config_attribs[] = {EGL_SURFACE_TYPE,
                                         EGL_PBUFFER_BIT,
                                         EGL_RENDERABLE_TYPE,
                                         EGL_OPENGL_BIT,
                                         EGL_RED_SIZE,
                                         8,
                                         EGL_GREEN_SIZE,
                                         8,
                                         EGL_BLUE_SIZE,
                                         8,
                                         EGL_NONE};
        EGLConfig config = nullptr;
        EGLint n = 0;
        if (eglChooseConfig(display_, config_attribs, &config, 1, &n) != EGL_TRUE || n == 0) {
            error_ = "no EGL config with OpenGL and pbuffers";
            return;
        }
        const EGLint pbuffer_attribs[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
        surface_ = eglCreatePbufferSurface(display_, config, pbuffer_attribs);
        if (eglBindAPI(EGL_OPENGL_API) != EGL_TRUE) {
            error_ = "eglBindAPI(EGL_OPENGL_API) failed";
            return;
        }
        const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                          3,
                                          EGL_CONTEXT_MINOR_VERSION,
                                          3,
                                          EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                          EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                          EGL_NONE};
        context_ = eglCreateContext(display_, config, EGL_NO_CONTEXT, context_attribs);
        if (context_ == EGL_NO_CONTEXT) {
            error_ = "eglCreateContext failed";
            return;
        }
        if (eglMakeCurrent(display_, surface_, surface_, context_) != EGL_TRUE)
            error_ = "eglMakeCurrent failed";
    }

    EGLDisplay display_ = EGL_NO_DISPLAY;
    EGLSurface surface_ = EGL_NO_SURFACE;
    EGLContext context_ = EGL_NO_CONTEXT;
    std::string error_;
};

}  // namespace lacuna::render

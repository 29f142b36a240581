// The renderer's CUDA–GL interop path under headless EGL on the NVIDIA driver: device image →
// texture registered with CUDA (a device-to-device copy) → framebuffer, read back and compared
// exactly with the engine's pixels. Odd sizes and pitched device buffers; the buffer grows and is
// reused; the host path still works after interop. Needs a CUDA device (label gpu).
#include <GL/glew.h>

#include <lacuna/render/egl_context.hpp>
#include <lacuna/render/framebuffer.hpp>

#include <lacuna/core/backend.hpp>
#include <lacuna/core/device_image.hpp>
#include <lacuna/render/image_renderer.hpp>

#include <QtTest>

#include <memory>

using namespace lacuna;
using render::Framebuffer;

namespace {

ImageRgba8 pattern(const int w, const int h, const int seed) {
    ImageRgba8 image(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            image.at(x, y) = Rgba8{std::uint8_t(x * 13 + y + seed), std::uint8_t(y * 7 + 3 * x),
                                   std::uint8_t((x ^ y) * 5 + seed), 255};
    return image;
}

}  // namespace

class TestRenderInterop : public QObject {
    Q_OBJECT
    std::unique_ptr<render::EglContext> egl_;
    std::unique_ptr<render::ImageRenderer> renderer_;

    /// Presents `image` through interop and checks the drawn pixels exactly.
    void present_and_compare(const ImageRgba8& image) {
        const OwnedStream stream;  // the image's own, as a document's
        const DeviceImage<Rgba8> device(image.view(), stream.get());
        std::string error;
        QVERIFY2(renderer_->set_image(device, error), error.c_str());
        QVERIFY(renderer_->last_image_was_interop());
        QCOMPARE(renderer_->image_width(), image.width());
        Framebuffer fb(image.width(), image.height());
        QVERIFY(fb.complete());
        renderer_->render(fb.id(), image.width(), image.height(), {});
        const ImageRgba8 out = fb.read();
        QVERIFY(equal_pixels<Rgba8>(image.view(), out.view()));
    }

  private slots:
    void initTestCase() {
        const BackendInfo backend = select_backend(BackendRequest::Auto);
        if (backend.backend != Backend::Cuda)
            QSKIP(qPrintable("no usable CUDA device: " + QString::fromStdString(backend.reason)));
        egl_ = std::make_unique<render::EglContext>();
        if (!egl_->ok())
            QSKIP(qPrintable("no headless EGL context: " + QString::fromStdString(egl_->error())));
        renderer_ = std::make_unique<render::ImageRenderer>();
        std::string error;
        QVERIFY2(renderer_->initialize(error), error.c_str());
        qInfo("GL: %s", renderer_->gl_description().c_str());
    }
    void cleanupTestCase() {
        renderer_.reset();  // unregisters and frees with the context current
        egl_.reset();
    }

    void odd_size_pitched_device_image() { present_and_compare(pattern(333, 217, 1)); }

    void buffer_grows_then_is_reused() {
        // The texture grows to the largest image and is registered with CUDA once for it; the
        // smaller image and the large one again reuse both (no allocation, no registration).
        present_and_compare(pattern(1001, 755, 2));
        const render::ImageRenderer::TextureStats grown = renderer_->texture_stats();
        QVERIFY(grown.capacity_w >= 1001 && grown.capacity_h >= 755);
        QVERIFY(grown.allocations >= 1);
        QVERIFY(grown.registrations >= 1);
        present_and_compare(pattern(64, 47, 3));
        present_and_compare(pattern(1001, 755, 4));
        const render::ImageRenderer::TextureStats after = renderer_->texture_stats();
        QCOMPARE(after.allocations, grown.allocations);
        QCOMPARE(after.registrations, grown.registrations);
        QCOMPARE(after.capacity_w, grown.capacity_w);
        QCOMPARE(after.capacity_h, grown.capacity_h);
        // Larger again: one new allocation and one new registration.
        present_and_compare(pattern(1203, 800, 5));
        const render::ImageRenderer::TextureStats larger = renderer_->texture_stats();
        QCOMPARE(larger.allocations, grown.allocations + 1);
        QCOMPARE(larger.registrations, grown.registrations + 1);
    }

    void host_path_after_interop() {
        const ImageRgba8 image = pattern(129, 65, 5);
        renderer_->set_image(image.view());
        QVERIFY(!renderer_->last_image_was_interop());
        Framebuffer fb(129, 65);
        renderer_->render(fb.id(), 129, 65, {});
        QVERIFY(equal_pixels<Rgba8>(image.view(), fb.read().view()));
        present_and_compare(pattern(129, 65, 6));
    }
};

QTEST_GUILESS_MAIN(TestRenderInterop)
#include "test_render_interop.moc"

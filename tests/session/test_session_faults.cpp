// Real CUDA failures in the middle of the editor's work: with the test switch
// (lacuna/core/fault_injection.hpp, the LACUNA_CUDA_FAULT variable's twin) one device allocation
// or kernel launch fails. For retarget, fill, the line histogram and presenting, a session on
// the device and one on the host do the same thing; the device session must say what happened,
// end with the same document and history as the host session, present the same frame, and undo
// back to the original pixels exactly.
#include "session_scenario.hpp"

#include <line_tool.hpp>
#include <remove_object_tool.hpp>
#include <retarget_tool.hpp>

#include <lacuna/core/backend.hpp>
#include <lacuna/core/fault_injection.hpp>
#include <lacuna/render/egl_context.hpp>

#include <QtTest>

#include <functional>
#include <memory>
#include <string>

using namespace lacuna;
using session::MaskLayer;

namespace {

constexpr int kW = 613;
constexpr int kH = 419;

/// A notice of the failure: the session's ("The GPU failed (…)", "Editing on the host (…)") or
/// the retarget panel's ("The GPU could not carve (…)"), carrying the CUDA error.
bool mentions_the_gpu(const std::vector<std::string>& notices) {
    for (const std::string& n : notices)
        if ((n.find("GPU failed") != std::string::npos ||
             n.find("GPU could not") != std::string::npos ||
             n.find("Editing on the host") != std::string::npos) &&
            (n.find("too many resources") != std::string::npos ||
             n.find("out of") != std::string::npos || n.find("memory") != std::string::npos))
            return true;
    return false;
}

std::string joined(const std::vector<std::string>& notices) {
    std::string text;
    for (const std::string& n : notices) text += n + " | ";
    return text;
}

}  // namespace

class TestSessionFaults : public QObject {
    Q_OBJECT
    std::unique_ptr<render::EglContext> egl_;
    std::unique_ptr<render::ImageRenderer> device_renderer_, host_renderer_;
    std::unique_ptr<session::Session> device_, host_;
    ImageRgba8 photo_;

    /// Both sessions on the photo, idle: the host session carves on the CPU (so it never takes
    /// the armed fault), and both have finished the seam maps that opening starts.
    void open_both() {
        testing::arm_cuda_faults("");
        device_ = std::make_unique<session::Session>(true);
        host_ = std::make_unique<session::Session>(false);
        device_->open(clone(photo_.view()));
        host_->open(clone(photo_.view()));
        host_->retarget().set_carve_backend(Backend::Cpu);
        host_->retarget().restart();
        for (session::Session* s : {device_.get(), host_.get()}) {
            s->retarget().wait();
            while (s->poll()) {
            }
            (void)s->take_notices();
        }
        QVERIFY(device_->on_device());
    }

    /// The device session first (the armed fault is meant for it), then the host session.
    void both(const std::function<void(session::Session&)>& interaction) {
        interaction(*device_);
        interaction(*host_);
    }

    /// After the fault: the notice, the same document, frame and history as the host session,
    /// and undo back to the photo.
    void check_after_fault(const char* what) {
        QVERIFY2(
            testing::cuda_faults_injected() == 1,
            qPrintable(
                QString("%1: %2 faults injected").arg(what).arg(testing::cuda_faults_injected())));
        testing::arm_cuda_faults("");
        std::vector<std::string> notices = device_->take_notices();
        // The retarget panel's line (a map the CPU carved instead).
        notices.push_back(device_->retarget().status());
        QVERIFY2(
            mentions_the_gpu(notices),
            qPrintable(QString(what) + ": notices: " + QString::fromStdString(joined(notices))));
        QVERIFY2(equal_pixels<Rgba8>(device_->document().pixels().view(),
                                     host_->document().pixels().view()),
                 what);
        const ImageRgba8 a = test::presented_frame(*device_, *device_renderer_);
        const ImageRgba8 b = test::presented_frame(*host_, *host_renderer_);
        QVERIFY2(a.width() == b.width() && a.height() == b.height(), what);
        QVERIFY2(equal_pixels<Rgba8>(a.view(), b.view()), what);
        QCOMPARE(device_->history().count(), host_->history().count());
        while (device_->undo()) {
        }
        while (host_->undo()) {
        }
        QVERIFY2(equal_pixels<Rgba8>(device_->document().pixels().view(), photo_.view()), what);
        QVERIFY2(equal_pixels<Rgba8>(host_->document().pixels().view(), photo_.view()), what);
    }

  private slots:
    void initTestCase() {
        const BackendInfo backend = select_backend(BackendRequest::Auto);
        if (backend.backend != Backend::Cuda)
            QSKIP(qPrintable("no usable CUDA device: " + QString::fromStdString(backend.reason)));
        egl_ = std::make_unique<render::EglContext>();
        if (!egl_->ok())
            QSKIP(qPrintable("no headless EGL context: " + QString::fromStdString(egl_->error())));
        device_renderer_ = std::make_unique<render::ImageRenderer>();
        host_renderer_ = std::make_unique<render::ImageRenderer>();
        std::string error;
        QVERIFY2(device_renderer_->initialize(error), error.c_str());
        QVERIFY2(host_renderer_->initialize(error), error.c_str());
        photo_ = test::scenario_photo(kW, kH);
    }

    void cleanup() { testing::arm_cuda_faults(""); }

    void cleanupTestCase() {
        device_.reset();
        host_.reset();
        if (device_renderer_) device_renderer_->release();
        if (host_renderer_) host_renderer_->release();
        device_renderer_.reset();
        host_renderer_.reset();
    }

    void retarget_survives_a_failed_launch() {
        open_both();
        // The first device operation after this is the retarget tool's: the preview at the new
        // width, or the horizontal map it needs.
        testing::arm_cuda_faults("launch:1");
        both([](session::Session& s) {
            s.select(session::ToolKind::Retarget);
            s.retarget().wait();
            s.retarget().set_target(kW - 150, kH - 40);
            s.retarget().wait();
        });
        QVERIFY(device_->retarget().vertical_exact());
        both([](session::Session& s) { QVERIFY(s.retarget().apply()); });
        QCOMPARE(device_->document().width(), kW - 150);
        check_after_fault("retarget");
    }

    void fill_survives_a_failed_allocation() {
        open_both();
        both([](session::Session& s) {
            s.select(session::ToolKind::RemoveObject);
            s.remove_object().set_brush({60, 0.8, false});
            s.active_tool()->press({kW * 0.6 - 30, kH * 0.45});
            s.active_tool()->move({kW * 0.6 + 30, kH * 0.45});
            s.active_tool()->release({kW * 0.6 + 30, kH * 0.45});
        });
        for (session::Session* s : {device_.get(), host_.get()}) s->retarget().wait();
        testing::arm_cuda_faults("alloc:1");
        both([](session::Session& s) { QVERIFY(s.remove_object().start_fill()); });
        for (int guard = 0; guard < 100000 && (host_->remove_object().fill_running() ||
                                               device_->remove_object().fill_running());
             ++guard)
            both([](session::Session& s) {
                if (s.remove_object().fill_running()) s.remove_object().advance(16);
            });
        QVERIFY(!device_->remove_object().fill_running());
        // Something was filled: the red disc is gone from the host's result.
        QVERIFY(!equal_pixels<Rgba8>(host_->document().pixels().view(), photo_.view()));
        check_after_fault("fill");
    }

    void fill_survives_a_failed_launch() {
        open_both();
        both([](session::Session& s) {
            s.select(session::ToolKind::RemoveObject);
            s.remove_object().set_brush({60, 0.8, false});
            s.active_tool()->press({kW * 0.6 - 30, kH * 0.45});
            s.active_tool()->move({kW * 0.6 + 30, kH * 0.45});
            s.active_tool()->release({kW * 0.6 + 30, kH * 0.45});
        });
        for (session::Session* s : {device_.get(), host_.get()}) s->retarget().wait();
        // Several launches in: the fill has started on the device when one fails.
        testing::arm_cuda_faults("launch:5");
        both([](session::Session& s) { QVERIFY(s.remove_object().start_fill()); });
        for (int guard = 0; guard < 100000 && (host_->remove_object().fill_running() ||
                                               device_->remove_object().fill_running());
             ++guard)
            both([](session::Session& s) {
                if (s.remove_object().fill_running()) s.remove_object().advance(16);
            });
        check_after_fault("fill (launch)");
    }

    void line_histogram_survives_a_failed_launch() {
        open_both();
        both([](session::Session& s) {
            s.select(session::ToolKind::LineHistogram);
            s.line().set_band(32);
            s.active_tool()->press({50.5, 60.5});
            s.active_tool()->move({300.5, 200.5});
        });
        testing::arm_cuda_faults("launch:1");
        both([](session::Session& s) {
            s.active_tool()->move({400.5, 250.5});
            s.active_tool()->release({400.5, 250.5});
        });
        const ops::LineHistogram* a = device_->line().result();
        const ops::LineHistogram* b = host_->line().result();
        QVERIFY(a != nullptr && b != nullptr);
        QCOMPARE(a->channels.size(), b->channels.size());
        for (std::size_t c = 0; c < a->channels.size(); ++c) {
            QVERIFY(a->channels[c].counts == b->channels[c].counts);
            QVERIFY(a->channels[c].median == b->channels[c].median);
        }
        check_after_fault("line histogram");
    }

    void presenting_survives_a_failed_copy() {
        open_both();
        // The first device operation is the copy of the new document into the display texture.
        testing::arm_cuda_faults("launch:1");
        const ImageRgba8 a = test::presented_frame(*device_, *device_renderer_);
        const ImageRgba8 b = test::presented_frame(*host_, *host_renderer_);
        QVERIFY(equal_pixels<Rgba8>(a.view(), b.view()));
        QVERIFY(equal_pixels<Rgba8>(a.view(), photo_.view()));
        check_after_fault("present");
    }
};

QTEST_GUILESS_MAIN(TestSessionFaults)
#include "test_session_faults.moc"

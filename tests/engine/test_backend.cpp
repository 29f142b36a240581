// Backend selection without a usable GPU (CI, developer machines): what is chosen and why.
#include <lacuna/core/backend.hpp>
#include <lacuna/core/device_image.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/core/fault_injection.hpp>

#include <QtTest>

using namespace lacuna;

class TestBackend : public QObject {
    Q_OBJECT
  private slots:
    void parses_requests() {
        QCOMPARE(parse_backend_request("auto"), std::optional(BackendRequest::Auto));
        QCOMPARE(parse_backend_request("cpu"), std::optional(BackendRequest::Cpu));
        QCOMPARE(parse_backend_request("cuda"), std::optional(BackendRequest::Cuda));
        QVERIFY(!parse_backend_request("gpu"));
        QVERIFY(!parse_backend_request(""));
        QVERIFY(!parse_backend_request("CUDA "));
    }

    void cpu_request_always_gives_cpu() {
        const BackendInfo info = select_backend(BackendRequest::Cpu);
        QCOMPARE(info.backend, Backend::Cpu);
        QCOMPARE(info.cuda_reason, CudaUnavailableReason::NotRequested);
        QCOMPARE(QString::fromStdString(info.describe()), QString("CPU (CPU backend requested)"));
    }

    void auto_and_cuda_agree() {
        const BackendInfo automatic = select_backend(BackendRequest::Auto);
        // cuda_device_count() asks the CUDA runtime afresh: the probe's verdict must agree with it.
        const int devices = cuda_device_count();
        if (automatic.backend == Backend::Cuda) {
            QVERIFY(cuda_built());
            QVERIFY(devices >= 1);
            QVERIFY(automatic.device_index >= 0 && automatic.device_index < devices);
            QVERIFY(!automatic.device_name.empty());
            QVERIFY(automatic.compute_major >= 7);
            QVERIFY(automatic.device_memory_bytes > 0);
            QVERIFY(QString::fromStdString(automatic.describe())
                        .contains(QString("sm_%1%2")
                                      .arg(automatic.compute_major)
                                      .arg(automatic.compute_minor)));
            QCOMPARE(select_backend(BackendRequest::Cuda).backend, Backend::Cuda);
            return;
        }
        // Without a build or a device the runtime sees none; other failures (an old driver, no
        // memory) may still see a device.
        if (!cuda_built() || automatic.cuda_reason == CudaUnavailableReason::NoDevice)
            QCOMPARE(devices, 0);
        // No usable CUDA: auto falls back with a reason, an explicit cuda request fails with it.
        QVERIFY(!automatic.reason.empty());
        QVERIFY(automatic.cuda_reason != CudaUnavailableReason::None);
        if (!cuda_built()) QCOMPARE(automatic.cuda_reason, CudaUnavailableReason::NotBuilt);
        try {
            (void)select_backend(BackendRequest::Cuda);
            QFAIL("select_backend(Cuda) must throw without a usable device");
        } catch (const Error& e) {
            QCOMPARE(e.code(), ErrorCode::CudaUnavailable);
            QVERIFY(QString(e.what()).contains(QString::fromStdString(automatic.reason)));
        }
    }

    // A job that the CPU finishes before the device could start stays there under auto.
    void small_jobs_prefer_the_cpu() {
        QVERIFY(prefer_cpu_for(0.0));
        QVERIFY(prefer_cpu_for(kDeviceStartMs - 1));
        QVERIFY(!prefer_cpu_for(kDeviceStartMs));
        QVERIFY(!prefer_cpu_for(10 * kDeviceStartMs));
        QVERIFY(!describe_reason(CudaUnavailableReason::SmallJob).empty());
    }

    void one_fallback_policy_for_the_cli_and_the_editor() {
        // Device failures: the GPU failed, not the input.
        for (const ErrorCode code :
             {ErrorCode::DeviceError, ErrorCode::OutOfMemory, ErrorCode::CudaUnavailable}) {
            const Error e(code, "the device is gone");
            QVERIFY(is_device_failure(e));
            QVERIFY(falls_back_to_cpu(BackendRequest::Auto, e));
            // The user asked for the GPU: its failure is the answer.
            QVERIFY(!falls_back_to_cpu(BackendRequest::Cuda, e));
            QVERIFY(!falls_back_to_cpu(BackendRequest::Cpu, e));
        }
        // The input's or the user's problem fails the same way on every backend.
        for (const ErrorCode code :
             {ErrorCode::InvalidArgument, ErrorCode::NotFound, ErrorCode::Unreadable,
              ErrorCode::Corrupt, ErrorCode::Truncated, ErrorCode::UnsupportedFormat,
              ErrorCode::TooLarge, ErrorCode::EmptyImage, ErrorCode::WriteFailed,
              ErrorCode::Cancelled}) {
            const Error e(code, "not the device");
            QVERIFY(!is_device_failure(e));
            QVERIFY(!falls_back_to_cpu(BackendRequest::Auto, e));
        }
    }

    void reasons_are_sentences() {
        QCOMPARE(QString::fromStdString(describe_reason(CudaUnavailableReason::NoDevice)),
                 QString("no CUDA device found"));
        QCOMPARE(QString::fromStdString(
                     describe_reason(CudaUnavailableReason::DriverTooOld,
                                     "driver supports CUDA 11.4, runtime needs 13.0")),
                 QString("the NVIDIA driver is too old for this build's CUDA runtime (driver "
                         "supports CUDA 11.4, runtime needs 13.0)"));
        QCOMPARE(QString::fromStdString(describe_reason(CudaUnavailableReason::OutOfMemory)),
                 QString("the CUDA device is out of memory"));
        QCOMPARE(QString::fromStdString(describe_reason(CudaUnavailableReason::NotBuilt)),
                 QString("this build has no CUDA backend"));
        QVERIFY(describe_reason(CudaUnavailableReason::None).empty());
    }

    void device_image_without_device_fails_cleanly() {
        if (select_backend(BackendRequest::Auto).backend == Backend::Cuda) {
            QSKIP("a CUDA device is present; the gpu tests cover device images");
        }
        const ImageF32 host(4, 4, 1.0f);
        try {
            // No device, so no stream to give: the allocation must refuse first.
            // check-device-streams: allow
            DeviceImage<float> device(host.view(), DeviceStream{});
            QFAIL("allocating a device image without a device must throw");
        } catch (const Error& e) {
            QCOMPARE(e.code(), ErrorCode::CudaUnavailable);
        }
        // An empty DeviceImage is harmless to create and destroy.
        DeviceImage<float> empty;
        QVERIFY(empty.empty());
    }

    // The fault-injection switch (LACUNA_CUDA_FAULT): its spec and its counting. The CUDA paths
    // that honour it are tested on the GPU machine (test_cli_faults, test_session_faults).
    void fault_switch_counts_and_fires_once() {
        using detail::FaultSite;
        testing::arm_cuda_faults("alloc:3,launch:2");
        QCOMPARE(testing::cuda_faults_injected(), 0);
        QVERIFY(!detail::cuda_fault_due(FaultSite::Allocation));
        QVERIFY(!detail::cuda_fault_due(FaultSite::Launch));
        QVERIFY(!detail::cuda_fault_due(FaultSite::Allocation));
        QVERIFY(detail::cuda_fault_due(FaultSite::Launch));      // the 2nd launch
        QVERIFY(detail::cuda_fault_due(FaultSite::Allocation));  // the 3rd allocation
        for (int i = 0; i < 10; ++i) {
            QVERIFY(!detail::cuda_fault_due(FaultSite::Allocation));
            QVERIFY(!detail::cuda_fault_due(FaultSite::Launch));
        }
        QCOMPARE(testing::cuda_faults_injected(), 2);
        testing::arm_cuda_faults("");
        for (int i = 0; i < 10; ++i) QVERIFY(!detail::cuda_fault_due(FaultSite::Launch));
        QCOMPARE(testing::cuda_faults_injected(), 0);
    }

    void fault_switch_refuses_malformed_specs() {
        for (const char* bad : {"alloc", "launch:0", "launch:-1", "launch:x", "gpu:3", "alloc:2,",
                                "alloc:1;launch:2"}) {
            bool refused = false;
            try {
                testing::arm_cuda_faults(bad);
            } catch (const Error& e) {
                refused = e.code() == ErrorCode::InvalidArgument &&
                          std::string(e.what()).find(bad) != std::string::npos;
            }
            QVERIFY2(refused, bad);
        }
        testing::arm_cuda_faults("");
    }
};

QTEST_GUILESS_MAIN(TestBackend)
#include "test_backend.moc"

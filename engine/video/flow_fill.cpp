#include "flow_fill.hpp"

#include <opencv2/imgproc.hpp>

#include <vector>

namespace lacuna::video {

cv::Mat complete_flow(const cv::Mat& flow, const cv::Mat& known) {
    if (cv::countNonZero(known) == static_cast<int>(known.total())) return flow;
    if (flow.rows <= 1 && flow.cols <= 1) return flow;  // nothing known at all: keep it
    cv::Mat weighted;
    cv::Mat known2;
    cv::merge(std::vector<cv::Mat>{known, known}, known2);
    cv::multiply(flow, known2, weighted);
    const cv::Size half((flow.cols + 1) / 2, (flow.rows + 1) / 2);
    cv::Mat sum, weight;
    cv::resize(weighted, sum, half, 0, 0, cv::INTER_AREA);
    cv::resize(known, weight, half, 0, 0, cv::INTER_AREA);
    cv::Mat coarse(half, CV_32FC2, cv::Scalar(0, 0));
    cv::Mat coarse_known(half, CV_32F, cv::Scalar(0));
    for (int y = 0; y < half.height; ++y)
        for (int x = 0; x < half.width; ++x) {
            const float w = weight.at<float>(y, x);
            if (w > 1e-6f) {
                coarse.at<cv::Vec2f>(y, x) = sum.at<cv::Vec2f>(y, x) / w;
                coarse_known.at<float>(y, x) = 1.0f;
            }
        }
    if (cv::countNonZero(coarse_known) == 0) return flow;
    const cv::Mat filled = complete_flow(coarse, coarse_known);
    cv::Mat up;
    cv::resize(filled, up, flow.size(), 0, 0, cv::INTER_LINEAR);
    cv::Mat out = flow.clone();
    for (int y = 0; y < flow.rows; ++y)
        for (int x = 0; x < flow.cols; ++x)
            if (known.at<float>(y, x) < 0.5f) out.at<cv::Vec2f>(y, x) = up.at<cv::Vec2f>(y, x);
    return out;
}

}  // namespace lacuna::video

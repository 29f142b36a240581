// Completing a dense optical flow field where it is unknown, from the flow around it: shared by
// the video fill (the background's motion inside the hole) and the mask tracker (the object's
// motion out to its outline). Internal to lacuna_video.
#pragma once

#include <opencv2/core.hpp>

namespace lacuna::video {

/// `flow` (CV_32FC2) with every pixel where `known` (CV_32F, 1 = known, 0 = unknown) is below ½
/// replaced by pull-push: known values are averaged down a pyramid until every coarse pixel has
/// one, then unknown pixels take the bilinearly enlarged coarser level. A smooth membrane-like
/// fill. Returns `flow` itself when everything or nothing is known.
cv::Mat complete_flow(const cv::Mat& flow, const cv::Mat& known);

}  // namespace lacuna::video

// lacuna bench retarget-quality: photos narrowed to 50 % and 75 % of their width by
// our automatic mix, our seams only, ImageMagick's liblqr, plain scaling and a centre crop, scored
// by measures the automatic mode does not optimise (it minimises an image distance built on
// bidirectional similarity):
//  - ARS, Aspect Ratio Similarity (Zhang, Fang, Lin, Zhang & Li, IEEE TIP 2016), with the
//    authors' published formula and constants (16 × 16 blocks, alpha = 0.3, C = 1e-6, a block's
//    size in the result as the extent of its backward-registered pixels, a lost block counted
//    as extent 1, saliency-weighted sum). Where it differs: the registration is a per-row
//    monotone alignment, not SIFT flow (see registration()), and the saliency map is OpenCV's
//    spectral residual, not the maps the authors computed for RetargetMe;
//  - objects: how much each detected face and the most salient object keep their aspect ratio,
//    min(r_w, 1 / r_w) over its box (1: untouched; 0: cut away).
// --ars-pick adds a row that is not a method: the automatic mix's own candidates, chosen by the
// counted ARS instead of the image distance, so the table tells how much of the gap to the goal
// is the candidates and how much the choice among them.
#include "args.hpp"
#include "bench_util.hpp"
#include "commands.hpp"
#include "options.hpp"
#include "timing.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/core/parallel.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/ops/importance.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>

namespace lacuna::cli {
namespace {

namespace fs = std::filesystem;

/// The photos: the repository's, then OpenCV's samples as Debian's opencv-doc installs them
/// (people, animals, products, buildings, a plant, a painting, a car).
constexpr const char* kOpenCvSamples[] = {"basketball1.png",  "squirrel_cls.jpg",
                                          "orange.jpg",       "apple.jpg",
                                          "baboon.jpg",       "leuvenA.jpg",
                                          "aloeL.jpg",        "starry_night.jpg",
                                          "rubberwhale1.png", "licenseplate_motion.jpg"};
constexpr const char* kOpenCvDataDir = "/usr/share/doc/opencv-doc/examples/data";
constexpr int kMaxSide = 512;  ///< photos are area-reduced to this first (speed of the peers)

struct Photo {
    std::string name;
    ImageRgba8 image;
};

std::vector<Photo> load_photos(const fs::path& repo_dir, std::vector<std::string>& missing) {
    std::vector<fs::path> paths;
    for (const char* name :
         {"building.jpg", "butterfly.jpg", "fruits.jpg", "home.jpg", "messi5.jpg"})
        paths.push_back(repo_dir / name);
    for (const char* name : kOpenCvSamples) paths.push_back(fs::path(kOpenCvDataDir) / name);
    std::vector<Photo> photos;
    for (const fs::path& p : paths) {
        std::error_code ec;
        if (!fs::exists(p, ec)) {
            missing.push_back(p.string());
            continue;
        }
        ImageRgba8 image = io::read_image(p.string()).image;
        const int side = std::max(image.width(), image.height());
        if (side > kMaxSide) {
            const double f = static_cast<double>(kMaxSide) / side;
            image =
                ops::resample_area(image.view(), static_cast<int>(std::lround(image.width() * f)),
                                   static_cast<int>(std::lround(image.height() * f)));
        }
        photos.push_back({p.filename().string(), std::move(image)});
    }
    return photos;
}

/// Backward registration of a narrower result of the same height to the original: for every
/// result pixel (j, y), the original column it came from. Per row a monotone alignment (result
/// column j takes original column m(j), m strictly increasing) minimising the summed L1
/// difference of 1 × 3 RGB neighbourhoods. ARS registers with SIFT flow (dense SIFT, Lab colour
/// and position, coarse-to-fine belief propagation); every method compared here changes only the
/// width and keeps each row a subsequence or a resampling of the original row, which this
/// alignment recovers without SIFT flow's fold-overs.
Image<std::int32_t> registration(const ImageRgba8& original, const ImageRgba8& result) {
    const int W = original.width(), T = result.width(), h = original.height();
    if (T > W || result.height() != h)
        throw Error(ErrorCode::InvalidArgument,
                    "registration needs a narrower result of one height");
    Image<std::int32_t> source(T, h, 0);
    const auto diff = [&](const int y, const int j, const int i) {
        int s = 0;
        for (int d = -1; d <= 1; ++d) {
            const Rgba8 a = result.at(std::clamp(j + d, 0, T - 1), y);
            const Rgba8 b = original.at(std::clamp(i + d, 0, W - 1), y);
            s += std::abs(a.r - b.r) + std::abs(a.g - b.g) + std::abs(a.b - b.b);
        }
        return s;
    };
    parallel_chunks(h, [&](const int y0, const int y1, int) {
        constexpr std::int64_t kInf = std::numeric_limits<std::int64_t>::max() / 4;
        std::vector<std::int64_t> prev(static_cast<std::size_t>(W)), cur(prev.size());
        std::vector<std::int32_t> from(static_cast<std::size_t>(W) * T);
        for (int y = y0; y < y1; ++y) {
            for (int i = 0; i < W; ++i) prev[i] = i <= W - T ? diff(y, 0, i) : kInf;
            for (int j = 1; j < T; ++j) {
                std::int64_t best = kInf;
                int arg = -1;
                for (int i = 0; i < W; ++i) {
                    cur[i] = kInf;
                    if (i >= j && i <= W - T + j && best < kInf) {
                        cur[i] = best + diff(y, j, i);
                        from[static_cast<std::size_t>(j) * W + i] = arg;
                    }
                    if (prev[i] < best) {  // for the next i: min over i' < i + 1
                        best = prev[i];
                        arg = i;
                    }
                }
                std::swap(prev, cur);
            }
            int i = static_cast<int>(std::min_element(prev.begin(), prev.end()) - prev.begin());
            for (int j = T - 1; j >= 0; --j) {
                source.at(j, y) = i;
                if (j > 0) i = from[static_cast<std::size_t>(j) * W + i];
            }
        }
    });
    return source;
}

struct Box {
    int x0, y0, x1, y1;  ///< original pixels, inclusive-exclusive
};

struct Scores {
    double ars = 0;      ///< weighted by the fine-grained saliency (no carver uses it)
    double ars_sr = 0;   ///< weighted by the spectral-residual saliency (the map --saliency uses)
    double objects = 1;  ///< mean over objects; 1 when there is none
};

// ARS's fixed parameters (Zhang et al., TIP 2016, and the authors' MATLAB code, MIT_ARS_main.m):
// 16 × 16 blocks, the information-loss coefficient alpha = 0.3, the stabiliser C = 1e-6.
constexpr int kArsBlock = 16;
constexpr double kArsAlpha = 0.30;
constexpr double kArsC = 1e-6;

/// One block's aspect-ratio similarity from its width and height ratios (the extent of the
/// block's pixels in the result over the block side): the information-loss factor
/// exp(-alpha (mean ratio - 1)^2) times the similarity of the two ratios.
double ars_block(const double rw, const double rh) {
    const double m = (rw + rh) / 2;
    return std::exp(-kArsAlpha * (m - 1) * (m - 1)) * (2 * rw * rh + kArsC) /
           (rw * rw + rh * rh + kArsC);
}

/// ARS of `result` (the original's height, narrower): the original cut into whole 16 × 16 blocks
/// (a partial last row or column of blocks is left out, as the authors' code does); each
/// original pixel that a result pixel registered to puts that result pixel's position into its
/// block; a block's width and height in the result are the extents (max - min + 1) of those
/// positions — 1 when none came from it, as in the authors' code, so a block lost entirely
/// scores exp(-alpha (1/16 - 1)^2) = 0.77, while a block squeezed to one column scores about
/// 0.12; the score is the sum of the blocks' ARS weighted by their share of the saliency map
/// (normalised to sum 1 over the whole image).
/// `objects`: min(r, 1/r) of the share of each box's pixels the result keeps, averaged.
Scores score(const ImageRgba8& original, const Image<float>& saliency,
             const Image<float>& saliency_sr, const std::vector<Box>& objects,
             const ImageRgba8& result) {
    const int W = original.width(), h = original.height(), T = result.width();
    const Image<std::int32_t> source = registration(original, result);
    const int bw = W / kArsBlock, bh = h / kArsBlock;
    struct Extent {
        int x0 = std::numeric_limits<int>::max(), x1 = -1, y0 = std::numeric_limits<int>::max(),
            y1 = -1;
    };
    std::vector<Extent> blocks(static_cast<std::size_t>(bw) * bh);
    Image<std::uint8_t> kept(W, h, 0);
    for (int y = 0; y < h; ++y)
        for (int j = 0; j < T; ++j) {
            const int i = source.at(j, y);
            kept.at(i, y) = 1;
            const int bx = i / kArsBlock, by = y / kArsBlock;
            if (bx >= bw || by >= bh) continue;
            Extent& e = blocks[static_cast<std::size_t>(by) * bw + bx];
            e.x0 = std::min(e.x0, j);
            e.x1 = std::max(e.x1, j);
            e.y0 = std::min(e.y0, y);
            e.y1 = std::max(e.y1, y);
        }
    const auto weighted = [&](const Image<float>& map) {
        double total = 0;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < W; ++x) total += map.at(x, y);
        if (total <= 0) total = 1;
        double sum = 0;
        for (int by = 0; by < bh; ++by)
            for (int bx = 0; bx < bw; ++bx) {
                const Extent& e = blocks[static_cast<std::size_t>(by) * bw + bx];
                const double rw = (e.x1 < 0 ? 1 : e.x1 - e.x0 + 1) / static_cast<double>(kArsBlock);
                const double rh = (e.y1 < 0 ? 1 : e.y1 - e.y0 + 1) / static_cast<double>(kArsBlock);
                double s = 0;
                for (int y = by * kArsBlock; y < (by + 1) * kArsBlock; ++y)
                    for (int x = bx * kArsBlock; x < (bx + 1) * kArsBlock; ++x) s += map.at(x, y);
                sum += s / total * ars_block(rw, rh);
            }
        return sum;
    };
    Scores out;
    out.ars = weighted(saliency);
    out.ars_sr = weighted(saliency_sr);
    if (!objects.empty()) {
        double total = 0;
        for (const Box& b : objects) {
            double n = 0;
            for (int y = b.y0; y < b.y1; ++y)
                for (int x = b.x0; x < b.x1; ++x) n += kept.at(x, y);
            const double rw = n / ((b.x1 - b.x0) * static_cast<double>(b.y1 - b.y0));
            total += rw <= 0 ? 0.0 : std::min(rw, 1.0 / rw);
        }
        out.objects = total / static_cast<double>(objects.size());
    }
    return out;
}

/// The most salient object: the bounding box of the largest connected region above half the
/// saliency maximum.
std::optional<Box> salient_object(const Image<float>& saliency) {
    cv::Mat m(saliency.height(), saliency.width(), CV_8U);
    for (int y = 0; y < saliency.height(); ++y)
        for (int x = 0; x < saliency.width(); ++x)
            m.at<std::uint8_t>(y, x) = saliency.at(x, y) > 0.5f ? 255 : 0;
    cv::Mat labels, stats, centroids;
    const int n = cv::connectedComponentsWithStats(m, labels, stats, centroids);
    int best = -1;
    for (int k = 1; k < n; ++k)
        if (best < 0 || stats.at<int>(k, cv::CC_STAT_AREA) > stats.at<int>(best, cv::CC_STAT_AREA))
            best = k;
    if (best < 0) return std::nullopt;
    const int x = stats.at<int>(best, cv::CC_STAT_LEFT), y = stats.at<int>(best, cv::CC_STAT_TOP);
    return Box{x, y, x + stats.at<int>(best, cv::CC_STAT_WIDTH),
               y + stats.at<int>(best, cv::CC_STAT_HEIGHT)};
}

/// ImageMagick with liblqr: the first of these that carves.
std::string find_liquid_rescale(const fs::path& dir, const ImageRgba8& probe) {
    const fs::path in = dir / "probe.png", out = dir / "probe-out.png";
    io::write_image(in.string(), probe.view());
    for (const char* tool : {"convert-im6.q16", "convert", "magick"}) {
        if (!command_exists(tool)) continue;
        if (time_command(std::string(tool) + " '" + in.string() + "' -liquid-rescale 8x8! '" +
                         out.string() + "'") >= 0 &&
            fs::exists(out))
            return tool;
    }
    return {};
}

std::vector<std::string> split_list(const std::string& list) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= list.size()) {
        const std::size_t end = std::min(list.find(',', start), list.size());
        out.push_back(list.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

ImageRgba8 side_by_side(const std::vector<const ImageRgba8*>& images, const int gap) {
    int w = 0, h = 0;
    for (const ImageRgba8* i : images) {
        w += i->width() + gap;
        h = std::max(h, i->height());
    }
    ImageRgba8 out(w - gap, h, Rgba8{255, 255, 255, 255});
    int x0 = 0;
    for (const ImageRgba8* i : images) {
        for (int y = 0; y < i->height(); ++y)
            for (int x = 0; x < i->width(); ++x) out.at(x0 + x, y) = i->at(x, y);
        x0 += i->width() + gap;
    }
    return out;
}

ImageRgba8 stacked(const ImageRgba8& top, const ImageRgba8& bottom, const int gap) {
    ImageRgba8 out(std::max(top.width(), bottom.width()), top.height() + gap + bottom.height(),
                   Rgba8{255, 255, 255, 255});
    for (int y = 0; y < top.height(); ++y)
        for (int x = 0; x < top.width(); ++x) out.at(x, y) = top.at(x, y);
    for (int y = 0; y < bottom.height(); ++y)
        for (int x = 0; x < bottom.width(); ++x)
            out.at(x, top.height() + gap + y) = bottom.at(x, y);
    return out;
}

}  // namespace

int bench_retarget_quality(Context& ctx) {
    /// Scored and averaged beside the five methods: the same carvers with saliency or lines on
    /// as well (what the defaults of those terms are chosen by), and our seams with L1 energy.
    std::vector<std::string> variants = {"auto+sal",    "seams+sal",        "auto+lines",
                                         "seams+lines", "auto+sal+lines",   "seams+sal+lines",
                                         "seams+l1",    "seams+transversal"};
    if (const auto only = ctx.args.get("variants")) {
        const std::vector<std::string> known = variants;
        variants.clear();
        for (const std::string& v : split_list(*only)) {
            if (v.empty() || v == "none") continue;
            if (std::find(known.begin(), known.end(), v) == known.end())
                throw UsageError(
                    "--variants: unknown variant '" + v +
                    "' (auto+sal, seams+sal, auto+lines, seams+lines, "
                    "auto+sal+lines, seams+sal+lines, seams+l1, seams+transversal, none)");
            variants.push_back(v);
        }
    }
    const auto wanted = [&](const std::string& v) {
        return std::find(variants.begin(), variants.end(), v) != variants.end();
    };
    const bool ars_pick = ctx.args.has("ars-pick");
    const fs::path repo_dir = ctx.args.get("data").value_or(LACUNA_BENCH_DATA_DIR);
    std::vector<std::string> missing;
    std::vector<Photo> photos = load_photos(repo_dir, missing);
    if (const auto only = ctx.args.get("case"))
        std::erase_if(photos,
                      [&](const Photo& p) { return p.name.find(*only) == std::string::npos; });
    for (const std::string& m : missing) ctx.note("photo not found, skipped: " + m);
    if (photos.empty()) throw Error(ErrorCode::NotFound, "no photos to retarget");
    std::optional<fs::path> save;
    if (const auto s = ctx.args.get("save")) {
        save = fs::path(*s);
        fs::create_directories(*save);
    }
    const fs::path tmp = make_temp_dir();
    const std::string lqr_tool = find_liquid_rescale(tmp, photos[0].image);
    if (lqr_tool.empty())
        ctx.note("ImageMagick with liblqr not found (apt-get install imagemagick): no liblqr row");
    const Backend backend = ctx.select_backend().backend;
    const ops::CarveImplementation impl =
        backend == Backend::Cuda ? ops::CarveImplementation::Cuda : ops::CarveImplementation::Fast;

    const std::vector<std::string> methods = {"auto", "seams", "liblqr", "scale", "crop"};
    struct Row {
        std::string photo;
        int percent;
        std::map<std::string, Scores> scores;
        std::map<std::string, std::string> mix;  ///< of each automatic row
    };
    std::vector<Row> rows;
    double auto_ms = 0, seams_ms = 0;
    for (const Photo& photo : photos) {
        const ImageRgba8& image = photo.image;
        const int W = image.width(), H = image.height();
        // What the scores weigh and the objects they follow, found once on the original.
        const Image<float> saliency = ops::saliency_map(image.view(), 640);
        const std::vector<ops::FaceBox> faces = ops::detect_faces(image.view(), 640);
        // ARS weighs blocks by a saliency map (the authors ship maps made beforehand). The score
        // that counts weighs by Montabone & Soto's fine-grained saliency, which no carver and no
        // importance term uses; the spectral residual (the map the --saliency term protects,
        // so an automatic mix with that term would be scored by its own map) is reported beside
        // it. Both at the photo's size.
        const Image<float> saliency_fg = ops::fine_grained_saliency_map(image.view(), 640);
        std::vector<Box> objects;
        for (const ops::FaceBox& face : faces)
            objects.push_back({std::max(0, face.x), std::max(0, face.y),
                               std::min(W, face.x + face.width),
                               std::min(H, face.y + face.height)});
        if (const auto salient = salient_object(saliency)) objects.push_back(*salient);

        if (save) {
            // The two weightings, to look at (white = salient).
            for (const auto& [suffix, map] : {std::pair{"-saliency-fg.png", &saliency_fg},
                                              std::pair{"-saliency-sr.png", &saliency}}) {
                ImageRgba8 grey(W, H);
                for (int y = 0; y < H; ++y)
                    for (int x = 0; x < W; ++x) {
                        const auto v = static_cast<std::uint8_t>(
                            std::clamp(std::lround(map->at(x, y) * 255.0f), 0L, 255L));
                        grey.at(x, y) = Rgba8{v, v, v, 255};
                    }
                io::write_image((*save / (fs::path(photo.name).stem().string() + suffix)).string(),
                                grey.view());
            }
        }
        const ops::ImportanceMap importance = ops::importance_map(image.view(), {});
        ops::ImportanceParams with_saliency, with_lines, with_both;
        with_saliency.saliency = true;
        with_lines.lines = true;
        with_both.saliency = with_both.lines = true;
        const ops::ImportanceMap salient_levels = ops::importance_map(image.view(), with_saliency);
        const ops::ImportanceMap line_levels = ops::importance_map(image.view(), with_lines);
        const ops::ImportanceMap salient_line_levels =
            wanted("auto+sal+lines") || wanted("seams+sal+lines")
                ? ops::importance_map(image.view(), with_both)
                : ops::ImportanceMap{};
        ImageRgba8 first_row;
        for (const int percent : {50, 75}) {
            const int tw = static_cast<int>(std::lround(W * percent / 100.0));
            std::map<std::string, ImageRgba8> results;
            ops::RetargetParams p;
            p.width = tw;
            p.height = H;
            if (!importance.empty()) {
                p.importance = &importance.levels;
                p.importance_unit = ops::importance_unit(p.energy);
                p.crop_keep = &importance.crop_levels();
            }
            auto t = Clock::now();
            results["seams"] = ops::retarget(image.view(), p, impl).image;
            seams_ms += ms_since(t);
            p.automatic = true;
            t = Clock::now();
            const ops::RetargetResult automatic = ops::retarget(image.view(), p, impl);
            auto_ms += ms_since(t);
            results["auto"] = automatic.image;
            std::map<std::string, ops::SideMix> mixes{{"auto", automatic.width_mix}};
            if (ars_pick) {
                // The same candidates, the one with the highest counted ARS taken.
                const ops::MixDistance by_ars = [&](ImageView<const Rgba8>,
                                                    const ImageView<const Rgba8> candidate) {
                    return -score(image, saliency_fg, saliency, objects, clone(candidate)).ars;
                };
                ops::RetargetParams v = p;
                v.mix_distance = &by_ars;
                ops::RetargetResult r = ops::retarget(image.view(), v, impl);
                mixes["ars-pick"] = r.width_mix;
                results["ars-pick"] = std::move(r.image);
            }
            results["scale"] = ops::resample_area(image.view(), tw, H);
            ImageRgba8 crop(tw, H);
            const int x0 = (W - tw) / 2;
            for (int y = 0; y < H; ++y)
                for (int x = 0; x < tw; ++x) crop.at(x, y) = image.at(x0 + x, y);
            results["crop"] = std::move(crop);
            // The other importance terms, each beside the default (faces), to choose their
            // defaults by: the same seams and automatic mix with saliency or lines on.
            for (const auto& [suffix, map] :
                 {std::pair{"+sal", &salient_levels}, std::pair{"+lines", &line_levels},
                  std::pair{"+sal+lines", &salient_line_levels}}) {
                ops::RetargetParams v = p;
                v.automatic = false;
                v.importance = map->empty() ? nullptr : &map->levels;
                v.crop_keep = map->empty() ? nullptr : &map->crop_levels();
                if (wanted(std::string("seams") + suffix))
                    results[std::string("seams") + suffix] =
                        ops::retarget(image.view(), v, impl).image;
                v.automatic = true;
                if (wanted(std::string("auto") + suffix)) {
                    ops::RetargetResult r = ops::retarget(image.view(), v, impl);
                    mixes[std::string("auto") + suffix] = r.width_mix;
                    results[std::string("auto") + suffix] = std::move(r.image);
                }
            }
            // Our seams with the backward gradient energy (L1) and with liblqr's default energy
            // (transversal: |dI/dx| of the brightness only), beside liblqr's own: whether the
            // energy is what separates the two carvers.
            for (const SeamEnergy e : {SeamEnergy::L1, SeamEnergy::Transversal}) {
                const std::string name = "seams+" + ops::to_string(e);
                if (!wanted(name)) continue;
                ops::RetargetParams v = p;
                v.automatic = false;
                v.energy = e;
                v.importance_unit = ops::importance_unit(v.energy);
                results[name] = ops::retarget(image.view(), v, impl).image;
            }
            if (!lqr_tool.empty()) {
                const fs::path in = tmp / "in.png", out = tmp / "lqr.png";
                io::write_image(in.string(), image.view());
                fs::remove(out);
                if (time_command(lqr_tool + " '" + in.string() + "' -liquid-rescale " +
                                 std::to_string(tw) + "x" + std::to_string(H) + "! '" +
                                 out.string() + "'") >= 0)
                    results["liblqr"] = io::read_image(out.string()).image;
            }
            Row row{photo.name, percent, {}, {}};
            for (const auto& [method, m] : mixes)
                row.mix[method] =
                    "crop " + std::to_string(m.crop) + ", seams " + std::to_string(m.seams) +
                    (m.seams > 0 ? " " + ops::to_string(m.energy) : std::string()) + ", scale " +
                    std::to_string(m.scaled_from) + "->" + std::to_string(m.scaled_to);
            for (const auto& [method, result] : results)
                row.scores[method] = score(image, saliency_fg, saliency, objects, result);
            rows.push_back(std::move(row));
            if (save) {
                const std::string stem =
                    fs::path(photo.name).stem().string() + "-" + std::to_string(percent);
                for (const auto& [method, result] : results)
                    io::write_image((*save / (stem + "-" + method + ".png")).string(),
                                    result.view());
                std::vector<const ImageRgba8*> strip{&image};
                for (const std::string& method : methods)
                    if (results.count(method)) strip.push_back(&results.at(method));
                ImageRgba8 sheet = side_by_side(strip, 6);
                // One sheet per photo: the 50 % row above the 75 % row.
                if (percent == 50) {
                    first_row = std::move(sheet);
                } else {
                    io::write_image(
                        (*save / (fs::path(photo.name).stem().string() + "-sheet.png")).string(),
                        stacked(first_row, sheet, 10).view());
                }
            }
        }
    }
    fs::remove_all(tmp);

    // The table: per photo and width, each method's block ARS (fine-grained saliency, then
    // spectral residual) and object aspect score.
    ctx.out << "lacuna bench retarget-quality: " << photos.size()
            << " photos (longest side <= " << kMaxSide
            << "), narrowed to 50 % and 75 % of the width\n";
    ctx.out << "scores: ARS = Aspect Ratio Similarity (Zhang et al. 2016: 16x16 blocks, alpha 0.3;"
               " registration per row; 1 best), blocks weighted by fine-grained saliency "
               "(Montabone & Soto 2010, which no carver uses: the score counted) | ARSsr: the "
               "same weighted by spectral-residual saliency (the map --saliency protects) | "
               "obj = faces and salient object keeping their aspect (1 best)\n\n";
    char line[512];
    std::snprintf(line, sizeof line, "%-24s %4s", "photo", "w%");
    ctx.out << line;
    std::vector<std::string> shown = methods;
    if (ars_pick) shown.push_back("ars-pick");
    for (const std::string& v : variants)
        if (v.rfind("auto", 0) == 0) shown.push_back(v);
    for (const std::string& m : shown) {
        std::snprintf(line, sizeof line, " | %-10s ARS  ARSsr obj", m.c_str());
        ctx.out << line;
    }
    ctx.out << " | auto's mix\n";
    std::map<std::string, double> ars_sum, sr_sum, obj_sum;
    for (const Row& r : rows) {
        std::snprintf(line, sizeof line, "%-24s %4d", r.photo.c_str(), r.percent);
        ctx.out << line;
        for (const std::string& m : shown) {
            if (!r.scores.count(m)) {
                ctx.out << " |                       -";
                continue;
            }
            const Scores& s = r.scores.at(m);
            std::snprintf(line, sizeof line, " |            %.3f %.3f %.2f", s.ars, s.ars_sr,
                          s.objects);
            ctx.out << line;
        }
        for (const auto& [method, mix] : r.mix) ctx.out << " | " << method << ": " << mix;
        ctx.out << "\n";
    }
    for (const Row& r : rows)
        for (const auto& [m, s] : r.scores) {
            ars_sum[m] += s.ars;
            sr_sum[m] += s.ars_sr;
            obj_sum[m] += s.objects;
        }
    const auto means = [&](const char* what, std::map<std::string, double>& sums) {
        ctx.out << "\nmean " << what << ":";
        for (const std::string& m : shown) {
            if (!sums.count(m)) continue;
            std::snprintf(line, sizeof line, "  %s %.3f", m.c_str(), sums[m] / rows.size());
            ctx.out << line;
        }
    };
    means("ARS", ars_sum);
    means("ARSsr", sr_sum);
    means("objects", obj_sum);
    // The variants against their base (same carver, faces only): mean scores, and in how many
    // cases each measure went up or down.
    for (const std::string& v : variants) {
        const std::string base = v.substr(0, v.find('+'));
        double ars = 0, obj = 0;
        int ars_up = 0, ars_down = 0, obj_up = 0, obj_down = 0, n = 0, above_lqr = 0;
        for (const Row& r : rows) {
            if (!r.scores.count(v) || !r.scores.count(base)) continue;
            const Scores& a = r.scores.at(v);
            const Scores& b = r.scores.at(base);
            if (r.scores.count("liblqr")) above_lqr += a.ars > r.scores.at("liblqr").ars + 5e-4;
            ars += a.ars;
            obj += a.objects;
            ars_up += a.ars > b.ars + 5e-4;
            ars_down += a.ars < b.ars - 5e-4;
            obj_up += a.objects > b.objects + 5e-3;
            obj_down += a.objects < b.objects - 5e-3;
            ++n;
        }
        if (n == 0) continue;
        std::snprintf(line, sizeof line,
                      "\n%-12s mean ARS %.3f (vs %s: up %d, down %d; above liblqr %d), mean "
                      "objects %.3f (up %d, down %d)",
                      v.c_str(), ars / n, base.c_str(), ars_up, ars_down, above_lqr, obj / n,
                      obj_up, obj_down);
        ctx.out << line;
    }
    ctx.out << "\n";
    // Best and worst per case among auto (or an automatic variant in its place), seams, liblqr,
    // scale and crop, by either weighting. Ties (within 0.0005: the same image, as when auto
    // chose plain scaling) count for every method that reaches the best or the worst score.
    const std::vector<std::string> peers(methods.begin() + 1, methods.end());
    for (const bool independent : {true, false}) {
        const auto value = [&](const Scores& s) { return independent ? s.ars : s.ars_sr; };
        const char* name = independent ? "ARS" : "ARSsr";
        std::vector<std::string> autos{"auto"};
        for (const std::string& v : variants)
            if (v.rfind("auto", 0) == 0) autos.push_back(v);
        if (ars_pick) autos.push_back("ars-pick");
        for (const std::string& a : autos) {
            std::vector<std::string> field{a};
            field.insert(field.end(), peers.begin(), peers.end());
            std::map<std::string, int> best_count, worst_count;
            int n = 0;
            std::string worst_cases;
            for (const Row& r : rows) {
                if (!r.scores.count(a)) continue;
                ++n;
                double hi = -1, lo = 2;
                for (const std::string& m : field)
                    if (r.scores.count(m)) {
                        hi = std::max(hi, value(r.scores.at(m)));
                        lo = std::min(lo, value(r.scores.at(m)));
                    }
                for (const std::string& m : field) {
                    if (!r.scores.count(m)) continue;
                    const double v = value(r.scores.at(m));
                    best_count[m] += v >= hi - 5e-4;
                    worst_count[m] += v <= lo + 5e-4;
                    if (m == a && v <= lo + 5e-4)
                        worst_cases += " " + r.photo + "@" + std::to_string(r.percent);
                }
            }
            if (n == 0) continue;
            std::snprintf(line, sizeof line, "by %-5s with %-10s best:", name, a.c_str());
            ctx.out << line;
            for (const std::string& m : field) ctx.out << "  " << m << " " << best_count[m];
            ctx.out << "  | worst:";
            for (const std::string& m : field) ctx.out << "  " << m << " " << worst_count[m];
            std::snprintf(line, sizeof line, "  | %s best in %d of %d (%.0f %%), worst in %d",
                          a.c_str(), best_count[a], n, 100.0 * best_count[a] / n, worst_count[a]);
            ctx.out << line;
            if (!worst_cases.empty()) ctx.out << " (" << worst_cases.substr(1) << ")";
            ctx.out << "\n";
        }
    }
    ctx.out << "goal: auto best by ARS (fine-grained weights) in >= 80 % of the cases, never "
               "worst\n";
    std::snprintf(line, sizeof line,
                  "time (%s, all photos and widths): auto %.0f ms, seams %.0f ms\n",
                  std::string(to_string(backend)).c_str(), auto_ms, seams_ms);
    ctx.out << line;
    if (ctx.args.has("case")) {
        ctx.out << "(--case: the importance speed rows are skipped)\n";
        if (save) ctx.out << "images: " << save->string() << "\n";
        return kExitOk;
    }
    // Speed of the importance terms: maps at 4K, detection reported apart,
    // and what the soft term costs the exact carve (it rides on the carvers' per-pixel level
    // term, which selects their 64-bit masked layout).
    {
        const ImageRgba8& base = photos[0].image;
        const ImageRgba8 uhd = ops::resample_area(base.view(), 3840, 2160);
        ops::ImportanceParams all;
        all.saliency = all.lines = all.skin = true;
        ops::importance_map(uhd.view(), all);  // warm: cascades loaded, pools started
        std::vector<double> detect, maps;
        for (int i = 0; i < 3; ++i) {
            const ops::ImportanceMap m = ops::importance_map(uhd.view(), all);
            detect.push_back(m.detect_ms);
            maps.push_back(m.maps_ms);
        }
        std::sort(detect.begin(), detect.end());
        std::sort(maps.begin(), maps.end());
        std::snprintf(line, sizeof line,
                      "importance at 3840x2160 (all four terms, CPU): detection %.0f ms (on a "
                      "640-pixel copy), maps %.0f ms (median of 3)\n",
                      detect[1], maps[1]);
        ctx.out << line;
        const ImageRgba8 hd = ops::resample_area(base.view(), 960, 540);
        const ops::ImportanceMap m = ops::importance_map(hd.view(), all);
        ops::CarveInput plain{hd.view(), nullptr, nullptr, SeamEnergy::Forward};
        ops::CarveInput with = plain;
        with.importance = &m.levels;
        with.importance_unit = ops::importance_unit(SeamEnergy::Forward);
        const auto carve_ms = [&](const ops::CarveInput& in) {
            std::vector<double> t;
            for (int i = 0; i < 3; ++i) {
                const auto start = Clock::now();
                ops::seam_order(in, ops::SeamDirection::Vertical, 480, impl);
                t.push_back(ms_since(start));
            }
            std::sort(t.begin(), t.end());
            return t[1];
        };
        const double plain_ms = carve_ms(plain), with_ms = carve_ms(with);
        std::snprintf(line, sizeof line,
                      "exact map, 960x540, 480 seams (%s): without importance %.0f ms, with "
                      "%.0f ms (%.2fx)\n",
                      std::string(to_string(backend)).c_str(), plain_ms, with_ms,
                      with_ms / plain_ms);
        ctx.out << line;
    }
    if (save) ctx.out << "images: " << save->string() << "\n";
    return kExitOk;
}

}  // namespace lacuna::cli

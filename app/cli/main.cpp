#include "commands.hpp"

#include <cstdlib>
#include <iostream>

int main(const int argc, char** argv) {
    // Before any CUDA call: video carving keeps up to 32 frames' kernels on as many streams, and
    // with the default 8 hardware queues streams sharing one wait for each other's work.
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
    return lacuna::cli::run({argv + 1, argv + argc}, std::cout, std::cerr);
}

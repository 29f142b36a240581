#include "commands.hpp"

#include <lacuna/core/backend.hpp>

#include <iostream>

int main(const int argc, char** argv) {
    lacuna::cuda_prefer_many_queues();  // before any CUDA call
    return lacuna::cli::run({argv + 1, argv + argc}, std::cout, std::cerr);
}

#include "commands.hpp"

#include <iostream>

int main(const int argc, char** argv) {
    return lacuna::cli::run({argv + 1, argv + argc}, std::cout, std::cerr);
}

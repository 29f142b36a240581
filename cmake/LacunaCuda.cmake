# Decides whether the CUDA backend is built and says why at configure time.
# Sets LACUNA_WITH_CUDA (BOOL) and LACUNA_CUDA_STATUS (a sentence for the summary).
string(TOUPPER "${LACUNA_CUDA}" _lacuna_cuda_mode)
set(LACUNA_WITH_CUDA OFF)
if(_lacuna_cuda_mode STREQUAL "OFF")
  set(LACUNA_CUDA_STATUS "OFF (LACUNA_CUDA=OFF): CPU-only build")
else()
  # nvcc is looked up on PATH, then in CUDACXX, then at the default toolkit location.
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
    find_program(_lacuna_nvcc nvcc HINTS /usr/local/cuda/bin ENV CUDA_PATH PATH_SUFFIXES bin)
    if(_lacuna_nvcc)
      set(CMAKE_CUDA_COMPILER "${_lacuna_nvcc}" CACHE FILEPATH "CUDA compiler")
    endif()
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # CMake reads the CUDAARCHS environment variable only where no default is set here.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
      # Turing, Ampere (A100 and GA10x), Ada, Hopper as native code, plus PTX for newer GPUs.
      set(CMAKE_CUDA_ARCHITECTURES "75-real;80-real;86-real;89-real;90" CACHE STRING "CUDA architectures")
    endif()
    enable_language(CUDA)
    # CMake 3.25 cannot ask nvcc for C++20; kernels and the headers they share are C++17.
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    set(CMAKE_CUDA_RUNTIME_LIBRARY Static)
    find_package(CUDAToolkit REQUIRED)
    set(LACUNA_WITH_CUDA ON)
    set(LACUNA_CUDA_STATUS "ON (nvcc ${CMAKE_CUDA_COMPILER_VERSION} at ${CMAKE_CUDA_COMPILER}, architectures ${CMAKE_CUDA_ARCHITECTURES})")
  elseif(_lacuna_cuda_mode STREQUAL "ON")
    message(FATAL_ERROR "LACUNA_CUDA=ON but no CUDA compiler (nvcc) was found: install the CUDA toolkit, "
                        "put nvcc on PATH or set CUDACXX, or configure with -DLACUNA_CUDA=OFF")
  else()
    set(LACUNA_CUDA_STATUS "OFF (no nvcc found on PATH, in CUDACXX or /usr/local/cuda): CPU-only build")
  endif()
endif()
message(STATUS "Lacuna CUDA backend: ${LACUNA_CUDA_STATUS}")

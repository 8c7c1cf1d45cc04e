# Debian packages with CPack (`cpack -G DEB` in a build directory), one per install
# component (cmake/install.cmake): mgedump (the executable; Depends computed by
# dpkg-shlibdeps from what it links), mgedump-dev (static libraries, headers,
# CMake and pkg-config files; Depends: the -dev packages of what they link) and
# mgedump-dbg (the executable's debug info, by build id).
set(CPACK_PACKAGE_NAME mgedump)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "mgedump maintainers <mgedump@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "serializes computing graphs into MegEngine's .mge model formats")
set(CPACK_PACKAGE_DESCRIPTION
    "mgedump writes and reads MegEngine's model files (FBS and FBS_V2): dump_graph's every option,
graph JSON and ONNX input, batch export on every core, and a reference evaluator.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime development debug)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # NAME_VERSION_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME mgedump)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
# Loaded at run time by the evaluator (engine/eval/blas_library.h), so no NEEDED
# entry tells dpkg-shlibdeps; CPack adds what it computes to this.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS "libopenblas0")

set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME mgedump-dev)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
# The static libraries link these at the embedding program's link time; pkg-config
# (pkgconf) reads mgedump.pc and the xxHash one the CMake package uses. OpenBLAS is
# loaded at run time (libopenblas0).
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS
    "libfmt-dev, libxxhash-dev, libflatbuffers-dev, nlohmann-json3-dev, libtbb-dev, libabsl-dev, libprotobuf-dev, libopenblas0, pkg-config")

set(CPACK_DEBIAN_DEBUG_PACKAGE_NAME mgedump-dbg)
set(CPACK_DEBIAN_DEBUG_PACKAGE_SECTION debug)
set(CPACK_DEBIAN_DEBUG_PACKAGE_DEPENDS "mgedump (= ${PROJECT_VERSION})")

include(CPack)
cpack_add_component(runtime DISPLAY_NAME "mgedump command line")
cpack_add_component(development DISPLAY_NAME "C++ library, headers, CMake and pkg-config files")
cpack_add_component(debug DISPLAY_NAME "debug info of the mgedump executable")

# tools/package_test.sh as the ctest test package_test: a Release build of a fresh copy
# of the repository, installed, packaged as .deb and as a wheel, each checked (about 20
# minutes on two cores, most of it the build). COST: started first, beside the rest.
if(MGEDUMP_BUILD_TESTS)
  add_test(NAME package_test COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/package_test.sh)
  set_tests_properties(package_test PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 3600 COST 10000 LABELS package)
endif()

# `cmake --install` (and CPack, cmake/package.cmake): the mgedump executable in bin/
# (component runtime); the static libraries, the public headers under
# include/mgedump/, a CMake package (find_package(mgedump CONFIG) → mgedump::mgedump)
# and a pkg-config file (component development); the executable's debug info in
# lib/debug/.build-id/ (component debug), the installed copies being stripped.
include(CMakePackageConfigHelpers)

option(MGEDUMP_INSTALL_SPLIT_DEBUG
       "Install the executable and libraries without debug info; the executable's goes to lib/debug/.build-id" ON)

install(TARGETS mgedump RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)

set(MGEDUMP_INSTALLED_LIBRARIES mgedump_api mgedump_jobs mgedump_engine mgedump_formats mgedump_onnx_proto mgedump_ir)
install(TARGETS ${MGEDUMP_INSTALLED_LIBRARIES} EXPORT mgedump-targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development)

# What an embedding program includes: the facade and the headers it reaches, which
# name only the standard library (tools/package_test.sh compiles them with no other
# include path). Everything else, FlatBuffers, oneTBB and JSON types included, stays inside.
install(FILES api/mgedump.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mgedump COMPONENT development)
set(MGEDUMP_PUBLIC_HEADERS
    ir/blobs.h ir/builder.h ir/dtype.h ir/error.h ir/graph.h ir/ids.h ir/infer.h ir/metadata.h
    ir/op_registry.h ir/param_schema.h ir/probe_index.h ir/strings.h
    engine/dump_options.h engine/dump_result.h engine/testcase/testcase_options.h
    formats/model_reader.h)
foreach(header IN LISTS MGEDUMP_PUBLIC_HEADERS)
  get_filename_component(dir ${header} DIRECTORY)
  install(FILES ${header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mgedump/${dir} COMPONENT development)
endforeach()

set(MGEDUMP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/mgedump)
install(EXPORT mgedump-targets NAMESPACE mgedump:: DESTINATION ${MGEDUMP_CMAKE_DIR} COMPONENT development)
configure_package_config_file(cmake/mgedump-config.cmake.in ${CMAKE_BINARY_DIR}/mgedump-config.cmake
                              INSTALL_DESTINATION ${MGEDUMP_CMAKE_DIR})
# 0.x: a minor version may change the API.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/mgedump-config-version.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/mgedump-config.cmake ${CMAKE_BINARY_DIR}/mgedump-config-version.cmake
        DESTINATION ${MGEDUMP_CMAKE_DIR} COMPONENT development)

# The .pc file finds its prefix from where it is installed, so one file serves
# `cmake --install --prefix P` and the Debian package (/usr) alike.
file(RELATIVE_PATH MGEDUMP_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(cmake/mgedump.pc.in ${CMAKE_BINARY_DIR}/mgedump.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/mgedump.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT development)

if(MGEDUMP_INSTALL_SPLIT_DEBUG)
  find_program(MGEDUMP_OBJCOPY NAMES objcopy HINTS ${CMAKE_OBJCOPY})
  find_program(MGEDUMP_READELF NAMES readelf)
  if(NOT MGEDUMP_OBJCOPY OR NOT MGEDUMP_READELF)
    message(WARNING "objcopy or readelf not found: installed binaries keep their debug info")
    return()
  endif()
  # The installed executable loses its symbols and debug info; gdb finds them again
  # through its build id in <prefix>/lib/debug/.build-id (the debug component;
  # `set debug-file-directory <prefix>/lib/debug` for a prefix other than /usr).
  install(CODE "
    set(exe \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/$<TARGET_FILE_NAME:mgedump>\")
    execute_process(COMMAND \"${MGEDUMP_OBJCOPY}\" --strip-all --remove-section=.comment \"\${exe}\"
                    RESULT_VARIABLE failed)
    if(failed)
      message(FATAL_ERROR \"cannot strip \${exe}\")
    endif()
    " COMPONENT runtime)
  foreach(lib IN LISTS MGEDUMP_INSTALLED_LIBRARIES)
    install(CODE "
      execute_process(COMMAND \"${MGEDUMP_OBJCOPY}\" --strip-debug
                      \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:${lib}>\")
      " COMPONENT development)
  endforeach()
  install(CODE "
    execute_process(COMMAND \"${MGEDUMP_READELF}\" -n \"$<TARGET_FILE:mgedump>\" OUTPUT_VARIABLE notes)
    if(notes MATCHES \"Build ID: ([0-9a-f][0-9a-f])([0-9a-f]+)\")
      set(debug_file \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/debug/.build-id/\${CMAKE_MATCH_1}/\${CMAKE_MATCH_2}.debug\")
      get_filename_component(dir \"\${debug_file}\" DIRECTORY)
      file(MAKE_DIRECTORY \"\${dir}\")
      message(STATUS \"Installing: \${debug_file}\")
      execute_process(COMMAND \"${MGEDUMP_OBJCOPY}\" --only-keep-debug --compress-debug-sections
                      \"$<TARGET_FILE:mgedump>\" \"\${debug_file}\" RESULT_VARIABLE failed)
      if(failed)
        message(FATAL_ERROR \"cannot write \${debug_file}\")
      endif()
      file(CHMOD \"\${debug_file}\" PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
      list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${debug_file}\")
    else()
      message(STATUS \"mgedump has no build id: no debug file installed\")
    endif()
    " COMPONENT debug)
endif()

# Installs headers, TableGen sources, generated includes, the libraries and
# an RLXConfig.cmake package so other projects can find_package(RLX).
include(CMakePackageConfigHelpers)

install(DIRECTORY ${RLX_SOURCE_DIR}/include/rlx
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td" PATTERN "*.def")
install(DIRECTORY ${RLX_BINARY_DIR}/include/rlx
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.inc")

set(RLX_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/rlx)
install(EXPORT RLXTargets NAMESPACE RLX:: DESTINATION ${RLX_INSTALL_CMAKEDIR})

# The package files describe the install tree, so they are written where
# find_package does not look (CMakeFiles/, as LLVM does): in build/cmake/,
# a consumer with build/bin on PATH found them through it and failed on the
# install tree's missing include folder.
set(RLX_PACKAGE_BUILD_DIR ${RLX_BINARY_DIR}/CMakeFiles/rlx-package)
configure_package_config_file(${RLX_SOURCE_DIR}/cmake/RLXConfig.cmake.in
  ${RLX_PACKAGE_BUILD_DIR}/RLXConfig.cmake
  INSTALL_DESTINATION ${RLX_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${RLX_PACKAGE_BUILD_DIR}/RLXConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${RLX_PACKAGE_BUILD_DIR}/RLXConfig.cmake
  ${RLX_PACKAGE_BUILD_DIR}/RLXConfigVersion.cmake
  DESTINATION ${RLX_INSTALL_CMAKEDIR})

// Podium's test VA driver has no API of its own: libva finds its one entry point,
// __vaDriverInit_<major>_<minor>, by name in podiumfake_drv_video.so (see fake_va.c).

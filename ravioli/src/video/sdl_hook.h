/*
 * sdl_hook.h - internal entry point of the SDL2 sink for the tests (not
 * installed): the sink's SDL_Window, to find where it is on the screen and
 * read back what it shows.
 */
#ifndef RAVIOLI_SDL_HOOK_H
#define RAVIOLI_SDL_HOOK_H

#include "ravioli/video.h"

/** The SDL_Window * of an SDL sink (NULL for other sinks). */
RV_API void *rv__sink_sdl_window(RV_Sink *sink);

#endif

#ifndef WBC_DECORATION_H
#define WBC_DECORATION_H
struct wbc_server;
/* server_decoration (KDE) and xdg-decoration, both server side (i.e. none drawn). */
int wbc_decoration_init(struct wbc_server *server);
#endif

#!/usr/bin/python3
"""kms-state.py [DEVICE]: the display state of a DRM device as `drm_info -j` (Debian's
drm-info) reports it, one canonical line per CRTC, connector and plane, so that two states
compare with diff:
  crtc ID active=0|1 mode=NAME|-
  connector TYPE-ID crtc=ID
  plane ID type=primary|overlay|cursor fb=ID crtc=ID src=X,Y,W,H dst=X,Y,W,H"""
import json
import subprocess
import sys

dev = sys.argv[1] if len(sys.argv) > 1 else '/dev/dri/card0'
info = json.loads(subprocess.run(['drm_info', '-j', dev], check=True,
                                 capture_output=True, text=True).stdout)[dev]
CONNECTOR_TYPES = {15: 'Virtual', 18: 'Writeback'}
PLANE_TYPES = {0: 'overlay', 1: 'primary', 2: 'cursor'}


def prop(obj, name):
    p = obj['properties'].get(name)
    return p['value'] if p else None


for c in info['crtcs']:
    mode = c['mode']['name'] if c.get('mode') and prop(c, 'ACTIVE') else '-'
    print('crtc %d active=%d mode=%s' % (c['id'], prop(c, 'ACTIVE'), mode))
seen = {}
for c in info['connectors']:
    kind = CONNECTOR_TYPES.get(c['type'], 'type%d' % c['type'])
    seen[kind] = seen.get(kind, 0) + 1
    print('connector %s-%d crtc=%d' % (kind, seen[kind], prop(c, 'CRTC_ID')))
for p in info['planes']:
    fb = prop(p, 'FB_ID')
    src = [prop(p, k) >> 16 for k in ('SRC_X', 'SRC_Y', 'SRC_W', 'SRC_H')] if fb else []
    dst = [prop(p, k) for k in ('CRTC_X', 'CRTC_Y', 'CRTC_W', 'CRTC_H')] if fb else []
    print('plane %d type=%s fb=%d crtc=%d src=%s dst=%s' % (
        p['id'], PLANE_TYPES.get(prop(p, 'type'), '?'), fb, prop(p, 'CRTC_ID'),
        ','.join(map(str, src)) or '-', ','.join(map(str, dst)) or '-'))

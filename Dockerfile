# commerce-api on Node.js 24 (LTS), which strips TypeScript types itself: no build step, no tsx. Pinned to a release
# that exists so a build is the same tomorrow; bump it deliberately.
FROM node:24.11.1-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8000 DATA_DIR=/data
COPY package.json package-lock.json ./
# The font packages ship every weight; documents print with the regular one only (src/documents/fonts.ts).
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force \
  && find node_modules/@embedpdf -path '*/fonts/*' -name '*.ttf' ! -name '*-Regular.ttf' -delete \
  && find node_modules/@expo-google-fonts/*/ -mindepth 1 -maxdepth 1 -type d ! -name 400Regular -exec rm -rf {} +
COPY bin ./bin
COPY src ./src
COPY web ./web
COPY migrations ./migrations
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --retries=6 CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8000)+'/readyz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["node", "src/server.ts"]

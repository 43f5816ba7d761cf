# VILS server image. Build from the project folder: `docker build -t vils .`
# The image is complete: `npm ci` builds the default policy model (models/gpudrive-policy.onnx) from the
# GPUDrive checkpoint the repository ships (models/checkpoints/, MIT), so nothing needs mounting to run it.
# (A build cannot mount volumes; to run another model, mount it when running the container and set VILS_MODEL.)
#   docker run -p 8000:8000 -e VILS_OPERATOR_TOKENS=<token> vils
FROM node:22-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
COPY converters ./converters
COPY bench ./bench
COPY maps ./maps
COPY configs ./configs
# the ROS 2 message definitions `vils export` writes its schemas from
COPY ros2/interfaces ./ros2/interfaces
COPY models/checkpoints ./models/checkpoints
# what keeps onnxruntime-node's install script from downloading its CUDA libraries, with node:22's npm 10 as with
# npm 11 (see install/onnxruntime-cpu-only/index.js): the image runs on the CPU
COPY install ./install
RUN npm ci --include=dev && npm prune --omit=dev \
  && test -s models/gpudrive-policy.onnx \
  && mkdir -p recordings && chown node:node recordings
# not root: the server needs to write nothing but its recordings
USER node
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8000/api/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/src/cli/vils.js", "start"]

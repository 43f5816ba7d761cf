# VILS server image. Build from the project folder; mount GPUDrive checkpoints at /shared to build the
# default policy model at install time, or mount a ready model at /app/models/gpudrive-policy.onnx.
FROM node:20-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json .npmrc tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
COPY converters ./converters
COPY bench ./bench
COPY maps ./maps
RUN npm ci --include=dev && npm prune --omit=dev
EXPOSE 8000
CMD ["npm", "start"]

; ModuleID = 'eh.cpp'
source_filename = "eh.cpp"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.G = type { ptr }

$_ZN1GD2Ev = comdat any

@_ZTIi = external constant ptr

; Function Attrs: mustprogress uwtable
define dso_local noundef i32 @_Z1fi(i32 noundef %x) #0 !dbg !9 {
entry:
  %x.addr = alloca i32, align 4
  store i32 %x, ptr %x.addr, align 4, !tbaa !15
    #dbg_declare(ptr %x.addr, !14, !DIExpression(), !19)
  %0 = load i32, ptr %x.addr, align 4, !dbg !20, !tbaa !15
  %cmp = icmp sgt i32 %0, 3, !dbg !22
  br i1 %cmp, label %if.then, label %if.end, !dbg !23

if.then:                                          ; preds = %entry
  %exception = call ptr @__cxa_allocate_exception(i64 4) #4, !dbg !24
  %1 = load i32, ptr %x.addr, align 4, !dbg !25, !tbaa !15
  store i32 %1, ptr %exception, align 16, !dbg !24, !tbaa !15
  call void @__cxa_throw(ptr %exception, ptr @_ZTIi, ptr null) #5, !dbg !24
  unreachable, !dbg !24

if.end:                                           ; preds = %entry
  %2 = load i32, ptr %x.addr, align 4, !dbg !26, !tbaa !15
  ret i32 %2, !dbg !27
}

declare ptr @__cxa_allocate_exception(i64)

declare void @__cxa_throw(ptr, ptr, ptr)

; Function Attrs: mustprogress uwtable
define dso_local noundef i32 @_Z1gi(i32 noundef %x) #0 personality ptr @__gxx_personality_v0 !dbg !28 {
entry:
  %retval = alloca i32, align 4
  %x.addr = alloca i32, align 4
  %d = alloca i32, align 4
  %guard = alloca %struct.G, align 8
  %exn.slot = alloca ptr, align 8
  %ehselector.slot = alloca i32, align 4
  %cleanup.dest.slot = alloca i32, align 4
  %v = alloca i32, align 4
  store i32 %x, ptr %x.addr, align 4, !tbaa !15
    #dbg_declare(ptr %x.addr, !30, !DIExpression(), !42)
  call void @llvm.lifetime.start.p0(i64 4, ptr %d) #4, !dbg !43
    #dbg_declare(ptr %d, !31, !DIExpression(), !44)
  store i32 0, ptr %d, align 4, !dbg !44, !tbaa !15
  call void @llvm.lifetime.start.p0(i64 8, ptr %guard) #4, !dbg !45
    #dbg_declare(ptr %guard, !32, !DIExpression(), !46)
  %p = getelementptr inbounds %struct.G, ptr %guard, i32 0, i32 0, !dbg !47
  store ptr %d, ptr %p, align 8, !dbg !47, !tbaa !48
  %0 = load i32, ptr %x.addr, align 4, !dbg !51, !tbaa !15
  %call = invoke noundef i32 @_Z1fi(i32 noundef %0)
          to label %invoke.cont unwind label %lpad, !dbg !53

invoke.cont:                                      ; preds = %entry
  %1 = load i32, ptr %x.addr, align 4, !dbg !54, !tbaa !15
  %add = add nsw i32 %1, 1, !dbg !55
  %call2 = invoke noundef i32 @_Z1fi(i32 noundef %add)
          to label %invoke.cont1 unwind label %lpad, !dbg !56

invoke.cont1:                                     ; preds = %invoke.cont
  %add3 = add nsw i32 %call, %call2, !dbg !57
  store i32 %add3, ptr %retval, align 4, !dbg !58
  store i32 1, ptr %cleanup.dest.slot, align 4
  br label %cleanup, !dbg !58

lpad:                                             ; preds = %invoke.cont, %entry
  %2 = landingpad { ptr, i32 }
          cleanup
          catch ptr @_ZTIi, !dbg !59
  %3 = extractvalue { ptr, i32 } %2, 0, !dbg !59
  store ptr %3, ptr %exn.slot, align 8, !dbg !59
  %4 = extractvalue { ptr, i32 } %2, 1, !dbg !59
  store i32 %4, ptr %ehselector.slot, align 4, !dbg !59
  br label %catch.dispatch, !dbg !59

catch.dispatch:                                   ; preds = %lpad
  %sel = load i32, ptr %ehselector.slot, align 4, !dbg !60
  %5 = call i32 @llvm.eh.typeid.for.p0(ptr @_ZTIi) #4, !dbg !60
  %matches = icmp eq i32 %sel, %5, !dbg !60
  br i1 %matches, label %catch, label %ehcleanup, !dbg !60

catch:                                            ; preds = %catch.dispatch
  call void @llvm.lifetime.start.p0(i64 4, ptr %v) #4, !dbg !60
    #dbg_declare(ptr %v, !41, !DIExpression(), !61)
  %exn = load ptr, ptr %exn.slot, align 8, !dbg !60
  %6 = call ptr @__cxa_begin_catch(ptr %exn) #4, !dbg !60
  %7 = load i32, ptr %6, align 4, !dbg !60, !tbaa !15
  store i32 %7, ptr %v, align 4, !dbg !60, !tbaa !15
  %8 = load i32, ptr %v, align 4, !dbg !62, !tbaa !15
  %cmp = icmp sgt i32 %8, 8, !dbg !65
  br i1 %cmp, label %if.then, label %if.end, !dbg !66

if.then:                                          ; preds = %catch
  invoke void @__cxa_rethrow() #5
          to label %unreachable unwind label %lpad4, !dbg !67

lpad4:                                            ; preds = %if.then
  %9 = landingpad { ptr, i32 }
          cleanup, !dbg !68
  %10 = extractvalue { ptr, i32 } %9, 0, !dbg !68
  store ptr %10, ptr %exn.slot, align 8, !dbg !68
  %11 = extractvalue { ptr, i32 } %9, 1, !dbg !68
  store i32 %11, ptr %ehselector.slot, align 4, !dbg !68
  call void @__cxa_end_catch() #4, !dbg !69
  call void @llvm.lifetime.end.p0(i64 4, ptr %v) #4, !dbg !69
  br label %ehcleanup, !dbg !69

if.end:                                           ; preds = %catch
  %12 = load i32, ptr %v, align 4, !dbg !70, !tbaa !15
  %sub = sub nsw i32 0, %12, !dbg !71
  store i32 %sub, ptr %retval, align 4, !dbg !72
  store i32 1, ptr %cleanup.dest.slot, align 4
  call void @__cxa_end_catch() #4, !dbg !69
  call void @llvm.lifetime.end.p0(i64 4, ptr %v) #4, !dbg !69
  br label %cleanup

try.cont:                                         ; No predecessors!
  unreachable, !dbg !69

cleanup:                                          ; preds = %if.end, %invoke.cont1
  call void @_ZN1GD2Ev(ptr noundef nonnull align 8 dereferenceable(8) %guard) #4, !dbg !73
  call void @llvm.lifetime.end.p0(i64 8, ptr %guard) #4, !dbg !73
  call void @llvm.lifetime.end.p0(i64 4, ptr %d) #4, !dbg !73
  %13 = load i32, ptr %retval, align 4, !dbg !73
  ret i32 %13, !dbg !73

ehcleanup:                                        ; preds = %lpad4, %catch.dispatch
  call void @_ZN1GD2Ev(ptr noundef nonnull align 8 dereferenceable(8) %guard) #4, !dbg !73
  call void @llvm.lifetime.end.p0(i64 8, ptr %guard) #4, !dbg !73
  call void @llvm.lifetime.end.p0(i64 4, ptr %d) #4, !dbg !73
  br label %eh.resume, !dbg !73

eh.resume:                                        ; preds = %ehcleanup
  %exn9 = load ptr, ptr %exn.slot, align 8, !dbg !73
  %sel10 = load i32, ptr %ehselector.slot, align 4, !dbg !73
  %lpad.val = insertvalue { ptr, i32 } poison, ptr %exn9, 0, !dbg !73
  %lpad.val11 = insertvalue { ptr, i32 } %lpad.val, i32 %sel10, 1, !dbg !73
  resume { ptr, i32 } %lpad.val11, !dbg !73

unreachable:                                      ; preds = %if.then
  unreachable
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

declare i32 @__gxx_personality_v0(...)

; Function Attrs: nounwind memory(none)
declare i32 @llvm.eh.typeid.for.p0(ptr) #2

declare ptr @__cxa_begin_catch(ptr)

declare void @__cxa_rethrow()

declare void @__cxa_end_catch()

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: mustprogress nounwind uwtable
define linkonce_odr dso_local void @_ZN1GD2Ev(ptr noundef nonnull align 8 dereferenceable(8) %this) unnamed_addr #3 comdat align 2 !dbg !74 {
entry:
  %this.addr = alloca ptr, align 8
  store ptr %this, ptr %this.addr, align 8, !tbaa !78
    #dbg_declare(ptr %this.addr, !76, !DIExpression(), !79)
  %this1 = load ptr, ptr %this.addr, align 8
  %p = getelementptr inbounds %struct.G, ptr %this1, i32 0, i32 0, !dbg !80
  %0 = load ptr, ptr %p, align 8, !dbg !80, !tbaa !48
  %1 = load i32, ptr %0, align 4, !dbg !82, !tbaa !15
  %inc = add nsw i32 %1, 1, !dbg !82
  store i32 %inc, ptr %0, align 4, !dbg !82, !tbaa !15
  ret void, !dbg !83
}

; Function Attrs: mustprogress nounwind uwtable
define dso_local noundef i32 @_Z1hi(i32 noundef %x) #3 !dbg !84 {
entry:
  %retval = alloca i32, align 4
  %x.addr = alloca i32, align 4
  store i32 %x, ptr %x.addr, align 4, !tbaa !15
    #dbg_declare(ptr %x.addr, !86, !DIExpression(), !88)
  callbr void asm sideeffect "", "!i,~{dirflag},~{fpsr},~{flags}"() #4
          to label %asm.fallthrough [label %out], !dbg !89, !srcloc !90

asm.fallthrough:                                  ; preds = %entry
  %0 = load i32, ptr %x.addr, align 4, !dbg !91, !tbaa !15
  store i32 %0, ptr %retval, align 4, !dbg !92
  br label %return, !dbg !92

out:                                              ; preds = %entry
    #dbg_label(!87, !93)
  %1 = load i32, ptr %x.addr, align 4, !dbg !94, !tbaa !15
  %sub = sub nsw i32 0, %1, !dbg !95
  store i32 %sub, ptr %retval, align 4, !dbg !96
  br label %return, !dbg !96

return:                                           ; preds = %out, %asm.fallthrough
  %2 = load i32, ptr %retval, align 4, !dbg !97
  ret i32 %2, !dbg !97
}

attributes #0 = { mustprogress uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { nounwind memory(none) }
attributes #3 = { mustprogress nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { nounwind }
attributes #5 = { noreturn }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4, !5, !6, !7}
!llvm.ident = !{!8}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "Debian clang version 19.1.7 (3~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "eh.cpp", directory: ".", checksumkind: CSK_MD5, checksum: "65c4efabed3d04adfea8b2dea155db68")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 1, !"wchar_size", i32 4}
!5 = !{i32 8, !"PIC Level", i32 2}
!6 = !{i32 7, !"PIE Level", i32 2}
!7 = !{i32 7, !"uwtable", i32 2}
!8 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!9 = distinct !DISubprogram(name: "f", linkageName: "_Z1fi", scope: !1, file: !1, line: 8, type: !10, scopeLine: 8, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !13)
!10 = !DISubroutineType(types: !11)
!11 = !{!12, !12}
!12 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!13 = !{!14}
!14 = !DILocalVariable(name: "x", arg: 1, scope: !9, file: !1, line: 8, type: !12)
!15 = !{!16, !16, i64 0}
!16 = !{!"int", !17, i64 0}
!17 = !{!"omnipotent char", !18, i64 0}
!18 = !{!"Simple C++ TBAA"}
!19 = !DILocation(line: 8, column: 11, scope: !9)
!20 = !DILocation(line: 9, column: 7, scope: !21)
!21 = distinct !DILexicalBlock(scope: !9, file: !1, line: 9, column: 7)
!22 = !DILocation(line: 9, column: 9, scope: !21)
!23 = !DILocation(line: 9, column: 7, scope: !9)
!24 = !DILocation(line: 10, column: 5, scope: !21)
!25 = !DILocation(line: 10, column: 11, scope: !21)
!26 = !DILocation(line: 11, column: 10, scope: !9)
!27 = !DILocation(line: 11, column: 3, scope: !9)
!28 = distinct !DISubprogram(name: "g", linkageName: "_Z1gi", scope: !1, file: !1, line: 13, type: !10, scopeLine: 13, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !29)
!29 = !{!30, !31, !32, !41}
!30 = !DILocalVariable(name: "x", arg: 1, scope: !28, file: !1, line: 13, type: !12)
!31 = !DILocalVariable(name: "d", scope: !28, file: !1, line: 14, type: !12)
!32 = !DILocalVariable(name: "guard", scope: !28, file: !1, line: 15, type: !33)
!33 = distinct !DICompositeType(tag: DW_TAG_structure_type, name: "G", file: !1, line: 4, size: 64, flags: DIFlagTypePassByReference | DIFlagNonTrivial, elements: !34, identifier: "_ZTS1G")
!34 = !{!35, !37}
!35 = !DIDerivedType(tag: DW_TAG_member, name: "p", scope: !33, file: !1, line: 5, baseType: !36, size: 64)
!36 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !12, size: 64)
!37 = !DISubprogram(name: "~G", scope: !33, file: !1, line: 6, type: !38, scopeLine: 6, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized)
!38 = !DISubroutineType(types: !39)
!39 = !{null, !40}
!40 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !33, size: 64, flags: DIFlagArtificial | DIFlagObjectPointer)
!41 = !DILocalVariable(name: "v", scope: !28, file: !1, line: 18, type: !12)
!42 = !DILocation(line: 13, column: 11, scope: !28)
!43 = !DILocation(line: 14, column: 3, scope: !28)
!44 = !DILocation(line: 14, column: 7, scope: !28)
!45 = !DILocation(line: 15, column: 3, scope: !28)
!46 = !DILocation(line: 15, column: 5, scope: !28)
!47 = !DILocation(line: 15, column: 10, scope: !28)
!48 = !{!49, !50, i64 0}
!49 = !{!"_ZTS1G", !50, i64 0}
!50 = !{!"any pointer", !17, i64 0}
!51 = !DILocation(line: 17, column: 14, scope: !52)
!52 = distinct !DILexicalBlock(scope: !28, file: !1, line: 16, column: 7)
!53 = !DILocation(line: 17, column: 12, scope: !52)
!54 = !DILocation(line: 17, column: 21, scope: !52)
!55 = !DILocation(line: 17, column: 23, scope: !52)
!56 = !DILocation(line: 17, column: 19, scope: !52)
!57 = !DILocation(line: 17, column: 17, scope: !52)
!58 = !DILocation(line: 17, column: 5, scope: !52)
!59 = !DILocation(line: 23, column: 1, scope: !52)
!60 = !DILocation(line: 18, column: 3, scope: !52)
!61 = !DILocation(line: 18, column: 16, scope: !28)
!62 = !DILocation(line: 19, column: 9, scope: !63)
!63 = distinct !DILexicalBlock(scope: !64, file: !1, line: 19, column: 9)
!64 = distinct !DILexicalBlock(scope: !28, file: !1, line: 18, column: 19)
!65 = !DILocation(line: 19, column: 11, scope: !63)
!66 = !DILocation(line: 19, column: 9, scope: !64)
!67 = !DILocation(line: 20, column: 7, scope: !63)
!68 = !DILocation(line: 23, column: 1, scope: !63)
!69 = !DILocation(line: 22, column: 3, scope: !64)
!70 = !DILocation(line: 21, column: 13, scope: !64)
!71 = !DILocation(line: 21, column: 12, scope: !64)
!72 = !DILocation(line: 21, column: 5, scope: !64)
!73 = !DILocation(line: 23, column: 1, scope: !28)
!74 = distinct !DISubprogram(name: "~G", linkageName: "_ZN1GD2Ev", scope: !33, file: !1, line: 6, type: !38, scopeLine: 6, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, declaration: !37, retainedNodes: !75)
!75 = !{!76}
!76 = !DILocalVariable(name: "this", arg: 1, scope: !74, type: !77, flags: DIFlagArtificial | DIFlagObjectPointer)
!77 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !33, size: 64)
!78 = !{!50, !50, i64 0}
!79 = !DILocation(line: 0, scope: !74)
!80 = !DILocation(line: 6, column: 12, scope: !81)
!81 = distinct !DILexicalBlock(scope: !74, file: !1, line: 6, column: 8)
!82 = !DILocation(line: 6, column: 14, scope: !81)
!83 = !DILocation(line: 6, column: 18, scope: !74)
!84 = distinct !DISubprogram(name: "h", linkageName: "_Z1hi", scope: !1, file: !1, line: 24, type: !10, scopeLine: 24, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !85)
!85 = !{!86, !87}
!86 = !DILocalVariable(name: "x", arg: 1, scope: !84, file: !1, line: 24, type: !12)
!87 = !DILabel(scope: !84, name: "out", file: !1, line: 27)
!88 = !DILocation(line: 24, column: 11, scope: !84)
!89 = !DILocation(line: 25, column: 3, scope: !84)
!90 = !{i64 501}
!91 = !DILocation(line: 26, column: 10, scope: !84)
!92 = !DILocation(line: 26, column: 3, scope: !84)
!93 = !DILocation(line: 27, column: 1, scope: !84)
!94 = !DILocation(line: 28, column: 11, scope: !84)
!95 = !DILocation(line: 28, column: 10, scope: !84)
!96 = !DILocation(line: 28, column: 3, scope: !84)
!97 = !DILocation(line: 29, column: 1, scope: !84)
